package forecast

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"sync"
	"testing"
)

// ETSRefNum is a number of ets_reference.json; null (R's NULL or NA) reads
// as NaN.
type ETSRefNum float64

func (r *ETSRefNum) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*r = ETSRefNum(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*r = ETSRefNum(f)
	return nil
}

// ETSRefNums is a vector of ets_reference.json; jsonlite writes a vector of
// length 1 as a bare number.
type ETSRefNums []float64

func (r *ETSRefNums) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '[' {
		var v ETSRefNum
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*r = ETSRefNums{float64(v)}
		return nil
	}
	var vs []ETSRefNum
	if err := json.Unmarshal(b, &vs); err != nil {
		return err
	}
	*r = make(ETSRefNums, len(vs))
	for i, v := range vs {
		(*r)[i] = float64(v)
	}
	return nil
}

// ETSRefFit is one fit of ets_reference.R with its forecast.
type ETSRefFit struct {
	Method                  string       `json:"method"`
	Components              []string     `json:"components"`
	LogLik                  ETSRefNum    `json:"loglik"`
	AIC                     ETSRefNum    `json:"aic"`
	AICc                    ETSRefNum    `json:"aicc"`
	BIC                     ETSRefNum    `json:"bic"`
	Sigma2                  ETSRefNum    `json:"sigma2"`
	MSE                     ETSRefNum    `json:"mse"`
	AMSE                    ETSRefNum    `json:"amse"`
	NPar                    int          `json:"npar"`
	InitState               ETSRefNums   `json:"initstate"`
	LastState               ETSRefNums   `json:"laststate"`
	ResidualsHead           ETSRefNums   `json:"residuals_head"`
	FittedHead              ETSRefNums   `json:"fitted_head"`
	H                       int          `json:"h"`
	Mean                    ETSRefNums   `json:"mean"`
	Lower                   []ETSRefNums `json:"lower"` // h rows of the 60, 90, 98 % bounds
	Upper                   []ETSRefNums `json:"upper"`
	Alpha, Beta, Gamma, Phi ETSRefNum
}

// ETSRefStart is the starting point of one form and R's likelihood there.
type ETSRefStart struct {
	Par       ETSRefNums `json:"par"`
	InitState ETSRefNums `json:"initstate"`
	Lik       ETSRefNum  `json:"lik"`
	AMSE      ETSRefNums `json:"amse"`
	EHead     ETSRefNums `json:"e_head"`
}

// ETSRefAdmissible is one draw of forecast:::admissible.
type ETSRefAdmissible struct {
	M                       int
	Alpha, Beta, Gamma, Phi float64
	Trend, Seasonal, Damped bool
	Admissible              bool
}

// ETSRefOption is one ets(y, ...) call with non-default arguments.
type ETSRefOption struct {
	Series                   string    `json:"series"`
	IC                       string    `json:"ic"`
	AdditiveOnly             bool      `json:"additive.only"`
	AllowMultiplicativeTrend bool      `json:"allow.multiplicative.trend"`
	Damped                   *bool     `json:"damped"`
	Model                    string    `json:"model"`
	Method                   string    `json:"method"`
	AICc                     ETSRefNum `json:"aicc"`
	AIC                      ETSRefNum `json:"aic"`
	BIC                      ETSRefNum `json:"bic"`
}

// ETSReference is testdata/ets_reference.json.
type ETSReference struct {
	Auto       map[string]ETSRefFit
	Fixed      map[string]map[string]ETSRefFit
	Start      map[string]map[string]ETSRefStart
	Extra      map[string]ETSRefFit
	Options    []ETSRefOption
	Admissible []ETSRefAdmissible
}

var etsReference = sync.OnceValues(func() (*ETSReference, error) {
	b, err := os.ReadFile("testdata/ets_reference.json")
	if err != nil {
		return nil, err
	}
	var r ETSReference
	return &r, json.Unmarshal(b, &r)
})

// LoadETSReference returns testdata/ets_reference.json.
func LoadETSReference(tb testing.TB) *ETSReference {
	tb.Helper()
	r, err := etsReference()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
