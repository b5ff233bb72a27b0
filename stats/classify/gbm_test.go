package classify_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/classify"
	"gonum.org/v1/gonum/mat"
)

// Reference values from testdata/reference_trees.py (scikit-learn 1.2.1):
// HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=7,
// min_samples_leaf=20, l2_regularization=λ, early_stopping=False) on iris
// (at most 43 distinct values a column, so both binnings put every value
// in its own bin), three classes and virginica-or-not, and on iris rows
// 25… with balanced weights: the probabilities (row-major, K a row) of
// rows 0, 50, 100, 120, 149 (of the rows 25, 50, 100, 120, 149 with
// weights). Tolerance 1e-6: scikit-learn keeps gradients and Hessians in
// float32, we in float64.
var gbmReference = []struct {
	name     string
	binary   bool
	weighted bool
	lambda   float64
	want     []float64
}{
	{"multi λ 0", false, false, 0, []float64{0.8976712932927241, 0.051171203895546219, 0.051157502811729622, 0.064325184455994805, 0.83521403309635023, 0.10046078244765497, 0.048487842250784424, 0.050710426006279112, 0.90080173174293654, 0.051639725252131237, 0.049625245713110624, 0.89873502903475821, 0.065332524956115176, 0.094159066460696897, 0.84050840858318787}},
	{"multi λ 1", false, false, 1, []float64{0.87343595113596062, 0.064814959900478933, 0.06174908896356035, 0.065819393746708019, 0.82506380202170804, 0.10911680423158401, 0.063178501775508156, 0.074109104213832919, 0.86271239401065891, 0.063178501775508156, 0.074109104213832919, 0.86271239401065891, 0.077792831693282882, 0.097748509616722254, 0.82445865868999479}},
	{"binary λ 0", true, false, 0, []float64{0.87911994588855646, 0.12088005411144356, 0.8225029089289716, 0.17749709107102843, 0.22917429100410702, 0.77082570899589298, 0.23669095842098031, 0.76330904157901969, 0.31009844997662028, 0.68990155002337972}},
	{"binary λ 1", true, false, 1, []float64{0.86865249836393565, 0.13134750163606437, 0.81479608697469341, 0.18520391302530656, 0.26709740773453483, 0.73290259226546517, 0.26709740773453483, 0.73290259226546517, 0.32547105707490176, 0.67452894292509824}},
	{"multi weighted", false, true, 1, []float64{0.86896650877040194, 0.0672774903466163, 0.063756000882981806, 0.068412607700811048, 0.81817324726061913, 0.11341414503856966, 0.066220843057030118, 0.078361928951245038, 0.85541722799172482, 0.066220843057030118, 0.078361928951245038, 0.85541722799172482, 0.074635097642273746, 0.094742806741213006, 0.83062209561651323}},
	{"binary weighted", true, true, 1, []float64{0.79809942772311704, 0.20190057227688302, 0.73589047377075734, 0.26410952622924266, 0.20365041269357487, 0.79634958730642513, 0.20365041269357487, 0.79634958730642513, 0.24373992223417873, 0.75626007776582127}},
}

func TestGBMMatchesSklearn(t *testing.T) {
	iris := loadCSV(t, "iris")
	for _, c := range gbmReference {
		d, rows := iris, []int{0, 50, 100, 120, 149}
		if c.binary {
			d.K, d.Y = 2, make([]int, len(iris.Y))
			for i, y := range iris.Y {
				if y == 2 {
					d.Y[i] = 1
				}
			}
		}
		if c.weighted {
			keep := make([]int, 0, 125)
			for i := 25; i < 150; i++ {
				keep = append(keep, i)
			}
			d = subset(d, keep)
			d.W = balanced(d.Y, d.K)
			rows = []int{0, 25, 75, 95, 124}
		}
		m := classify.FitGBMFixed(d, 7, 10, c.lambda, 2)
		var p mat.Dense
		m.Proba(subset(d, rows).X, &p)
		for i, want := range c.want {
			if got := p.RawMatrix().Data[i]; math.Abs(got-want) > 1e-6 {
				t.Errorf("FitGBMFixed(iris %s).Proba(row %d)[%d] = %.12g, want %.12g", c.name, rows[i/d.K], i%d.K, got, want)
			}
		}
	}
}

func TestGBMCV(t *testing.T) { testTreeCV(t, classify.GradientBoosting{}) }

func TestGBMRefitKeepsRounds(t *testing.T) {
	d := loadCSV(t, "wine")
	m, err := classify.GradientBoosting{}.Fit(d, classify.Options{Seed: 1, Workers: 2})
	if err != nil {
		t.Fatalf("GradientBoosting.Fit(wine) error %v", err)
	}
	rounds := classify.GBMRounds(m)
	if rounds < 1 || rounds > 1000 {
		t.Errorf("GradientBoosting.Fit(wine) boosted %d rounds, want 1 to 1000", rounds)
	}
	d.W = balanced(d.Y, d.K)
	r, err := m.Refit(d, classify.Options{Seed: 2, Workers: 1})
	if err != nil {
		t.Fatalf("Refit(wine) error %v", err)
	}
	if got := classify.GBMRounds(r); got != rounds {
		t.Errorf("Refit(wine) boosted %d rounds, want %d", got, rounds)
	}
}
