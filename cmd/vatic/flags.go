package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// envName is the environment twin of a flag: VATIC_ and the name in upper
// snake case.
func envName(flagName string) string {
	return "VATIC_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseFlags parses args into fs, then fills every flag not given on the
// command line from its environment twin. envOverride renames a twin
// (api-key's is VATIC_API_KEYS, a comma-separated list).
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) (string, bool), envOverride map[string]string) error {
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		if o, ok := envOverride[f.Name]; ok {
			env = o
		}
		f.Usage = fmt.Sprintf("%s (env %s)", f.Usage, env)
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		env := envName(f.Name)
		if o, ok := envOverride[f.Name]; ok {
			env = o
		}
		v, ok := getenv(env)
		if !ok || v == "" {
			return
		}
		if ml, isList := f.Value.(*listFlag); isList {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					err = errors.Join(err, ml.Set(part))
				}
			}
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = errors.Join(err, fmt.Errorf("%s=%q: %w", env, v, serr))
		}
	})
	return err
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// newFlagSet returns a flag set that writes its help to w.
func newFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}
