package bench_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vaticml/vatic/bench"
)

func TestReadFortunes(t *testing.T) {
	f := func(name, in string, want []string) {
		t.Helper()
		got, err := bench.ReadFortunes(strings.NewReader(in))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: ReadFortunes(%q) = %q, %v; want %q", name, in, got, err, want)
		}
	}
	f("plain", "A penny saved.\n%\nTwo lines\n\tof text\n\t\t-- Anon\n%\n", []string{"A penny saved.", "Two lines of text -- Anon"})
	f("no last separator", "one\n%\ntwo\n", []string{"one", "two"})
	f("empty quotations", "%\n\n%\n  \t\n%\nkept\n%\n%\n", []string{"kept"})
	f("CRLF", "one\r\n%\r\ntwo\r\n", []string{"one", "two"})
	// Only a line of exactly "%" separates.
	f("percent in text", "%DCL-MEM-BAD, bad memory\n50% off\n %\n%\n", []string{"%DCL-MEM-BAD, bad memory 50% off %"})
	// Overstriking, as the package's files use it: underlined letters
	// and words, bold, an accent.
	f("overstrike", "for all _\bn.\n*____\b\b\b\bonly* ones\nI\bI said\nRen'\be\nword\b\b\b\b____ x\n\b\bstart\n",
		[]string{"for all n. *only* ones I said Rene word x start"})
	f("utf-8", "Poincar\u00e9 \u2014 \u00fcber\n", []string{"Poincar\u00e9 \u2014 \u00fcber"})
	// Not UTF-8: Latin-1, one code point per byte.
	f("latin-1", "Poincar\xe9 \xfcber\n", []string{"Poincar\u00e9 \u00fcber"})
	f("nothing", "", nil)
}

// writeTopics writes a fortune file per topic in a new directory.
func writeTopics(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// quotes returns n distinct quotations "<prefix> i" in the fortune format.
func quotes(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(prefix + " " + strings.Repeat("x", i%7+1) + " " + string(rune('a'+i%26)) + " " + strings.Repeat("y", i) + "\n%\n")
	}
	return b.String()
}

func TestLoadTextCorpusMissing(t *testing.T) {
	_, err := bench.LoadTextCorpus(bench.TextConfig{Dir: filepath.Join(t.TempDir(), "fortunes")}, 1)
	if err == nil || !strings.Contains(err.Error(), "apt-get install fortunes") {
		t.Errorf("LoadTextCorpus(missing directory) = %v, want an error saying apt-get install fortunes", err)
	}
	dir := writeTopics(t, map[string]string{"food": quotes("food", 10)})
	_, err = bench.LoadTextCorpus(bench.TextConfig{Dir: dir, Topics: []string{"food", "love"}}, 1)
	if err == nil || !strings.Contains(err.Error(), "love") || !strings.Contains(err.Error(), "apt-get install fortunes") {
		t.Errorf("LoadTextCorpus(missing topic) = %v, want an error naming love and apt-get install fortunes", err)
	}
	for _, topics := range [][]string{{"food"}, {"food", "../love"}, {"food", "food.dat"}, {"food", "food"}} {
		if _, err := bench.LoadTextCorpus(bench.TextConfig{Dir: dir, Topics: topics}, 1); err == nil {
			t.Errorf("LoadTextCorpus(topics %q) = nil error, want one", topics)
		}
	}
	dir = writeTopics(t, map[string]string{"food": quotes("food", 10), "love": quotes("love", 3)})
	if _, err := bench.LoadTextCorpus(bench.TextConfig{Dir: dir, Topics: []string{"food", "love"}}, 1); err == nil || !strings.Contains(err.Error(), `"love" has 3 rows`) {
		t.Errorf("LoadTextCorpus(a topic with fewer quotations than folds) = %v, want an error naming love", err)
	}
}

func TestLoadTextCorpus(t *testing.T) {
	// work repeats one of food's quotations and one of its own.
	dir := writeTopics(t, map[string]string{
		"food": quotes("food", 12),
		"love": quotes("love", 7),
		"work": quotes("work", 9) + "food x a \n%\nwork x a \n%\n",
	})
	cfg := bench.TextConfig{Dir: dir, Topics: []string{"work", "food", "love"}}
	c, err := bench.LoadTextCorpus(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	count := func(c *bench.TextCorpus, topic string) int {
		n := 0
		for _, x := range c.Topics {
			if x == topic {
				n++
			}
		}
		return n
	}
	// work comes first: food's copy of "food x a" goes, work's stays.
	if len(c.Texts) != 9+1+11+7 || c.Duplicates != 2 || count(c, "work") != 10 || count(c, "food") != 11 {
		t.Errorf("LoadTextCorpus = %d rows (work %d, food %d), %d duplicates; want 28 (work 10, food 11), 2",
			len(c.Texts), count(c, "work"), count(c, "food"), c.Duplicates)
	}
	if !slices.Equal(c.Classes, []string{"food", "love", "work"}) || c.Texts[0] != "work x a" || c.Topics[0] != "work" {
		t.Errorf("LoadTextCorpus: classes %q, first row %q (%s); want sorted classes and work's quotations first", c.Classes, c.Texts[0], c.Topics[0])
	}
	if len(c.Fold) != len(c.Texts) {
		t.Fatalf("LoadTextCorpus: %d folds for %d rows", len(c.Fold), len(c.Texts))
	}

	cfg.MaxPerTopic = 8
	capped, err := bench.LoadTextCorpus(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := bench.LoadTextCorpus(cfg, 1)
	if count(capped, "work") != 8 || count(capped, "food") != 8 || count(capped, "love") != 7 || !slices.Equal(capped.Texts, again.Texts) {
		t.Errorf("LoadTextCorpus(MaxPerTopic 8) = work %d, food %d, love %d rows, or differs on the same seed; want 8, 8, 7",
			count(capped, "work"), count(capped, "food"), count(capped, "love"))
	}
	for _, q := range capped.Texts {
		if !slices.Contains(c.Texts, q) {
			t.Errorf("LoadTextCorpus(MaxPerTopic 8) has %q, not a quotation of the whole corpus", q)
		}
	}
}

func TestTextFolds(t *testing.T) {
	var labels []string
	for c, n := range map[string]int{"a": 23, "b": 5, "c": 11} {
		for range n {
			labels = append(labels, c)
		}
	}
	slices.Sort(labels)
	folds, err := bench.TextFolds(labels, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := bench.TextFolds(labels, 7)
	other, _ := bench.TextFolds(labels, 8)
	if !slices.Equal(folds, again) || slices.Equal(folds, other) {
		t.Errorf("TextFolds: seed 7 twice equal %v, seeds 7 and 8 differ %v; want true, true", slices.Equal(folds, again), !slices.Equal(folds, other))
	}
	// Every row in one fold of 0…4; each fold's size, and each class's
	// count in a fold, within one of the others'.
	size := make([]int, bench.TextSplits)
	perClass := map[string][]int{}
	for i, k := range folds {
		if k < 0 || k >= bench.TextSplits {
			t.Fatalf("TextFolds: row %d in fold %d", i, k)
		}
		size[k]++
		if perClass[labels[i]] == nil {
			perClass[labels[i]] = make([]int, bench.TextSplits)
		}
		perClass[labels[i]][k]++
	}
	if slices.Max(size)-slices.Min(size) > 1 {
		t.Errorf("TextFolds: fold sizes %v differ by more than one", size)
	}
	for c, n := range perClass {
		if slices.Max(n)-slices.Min(n) > 1 {
			t.Errorf("TextFolds: class %s's counts per fold %v differ by more than one", c, n)
		}
	}
	if _, err := bench.TextFolds([]string{"a", "a", "a", "a", "a", "b", "b"}, 1); err == nil {
		t.Error("TextFolds(a class of 2 rows) = nil error, want one")
	}
}

// TestLoadTextCorpusFortunes reads the installed package, when it is
// there: the default topics, every quotation a clean line of text.
func TestLoadTextCorpusFortunes(t *testing.T) {
	if _, err := os.Stat(bench.FortunesDir); err != nil {
		t.Skipf("%v: apt-get install fortunes", err)
	}
	c, err := bench.LoadTextCorpus(bench.TextConfig{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Classes) != len(bench.TextTopics) || len(c.Texts) < 5000 {
		t.Errorf("LoadTextCorpus(fortunes) = %d rows of classes %q, want over 5000 of %q", len(c.Texts), c.Classes, bench.TextTopics)
	}
	for i, q := range c.Texts {
		if q == "" || !utf8.ValidString(q) || strings.ContainsAny(q, "\b\n\r\t") {
			t.Errorf("row %d (%s) = %q: want non-empty UTF-8 on one line, without backspaces", i, c.Topics[i], q)
		}
	}
}
