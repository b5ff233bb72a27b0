package anomaly_test

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/vaticml/vatic/stats/anomaly"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Reference numbers: printed by testdata/reference.py (scikit-learn
// 1.2.1, NumPy 1.24.2, SciPy 1.10.1); the tests never run Python.

// labelled is one anomaly task per seed (reference.py's task): the
// picked anomalous rows (file indices), scikit-learn's ROC-AUC of
// IsolationForest(random_state=0) and EllipticEnvelope(random_state=0)
// at their defaults, and what reference.py prints for an IsolationForest
// of our forest's size (forestSize: max_samples ψ = min(256, n/4),
// ⌈25 600/ψ⌉ trees), the same algorithm as ours.
type labelled struct {
	picked        []int
	iso, ee       float64
	sized         float64 // ROC-AUC of the sized IsolationForest, random_state 0
	sizedSelfRank float64 // Spearman of the sized forest, random_state 0 vs 1
	sizedMean     float64 // mean score_samples of the sized forest, random_state 0
}

var (
	benign      = []string{"benign"}
	wineNormal  = []string{"class_0", "class_1"}
	breastTasks = []labelled{
		{[]int{5, 12, 41, 78, 127, 129, 156, 171, 186, 214, 253, 264, 282, 321, 351, 487, 516, 562}, 0.9471, 0.9421, 0.9553, 0.9803, -0.44241},
		{[]int{4, 18, 36, 39, 54, 62, 72, 86, 108, 171, 181, 328, 417, 487, 535, 536, 562, 563}, 0.9166, 0.9360, 0.9205, 0.9865, -0.44030},
		{[]int{10, 13, 26, 28, 45, 54, 172, 181, 233, 274, 277, 280, 282, 302, 328, 352, 441, 444}, 0.9525, 0.9374, 0.9462, 0.9823, -0.43889},
		{[]int{72, 126, 127, 198, 199, 259, 262, 353, 389, 400, 430, 444, 451, 479, 498, 509, 517, 533}, 0.9619, 0.9460, 0.9664, 0.9836, -0.44083},
		{[]int{1, 11, 18, 38, 117, 146, 168, 177, 202, 215, 274, 283, 366, 414, 514, 517, 521, 564}, 0.9528, 0.9185, 0.9483, 0.9861, -0.43901},
	}
	wineTasks = []labelled{
		{[]int{134, 156, 159, 160, 162, 167}, 0.9410, 0.9628, 0.9833, 0.9874, -0.47488},
		{[]int{132, 133, 153, 163, 166, 168}, 0.9308, 0.9833, 0.9833, 0.9872, -0.47586},
		{[]int{142, 146, 153, 165, 172, 173}, 0.9731, 0.9910, 0.9962, 0.9864, -0.47458},
		{[]int{139, 142, 158, 161, 168, 175}, 0.9282, 0.9833, 0.9808, 0.9854, -0.47514},
		{[]int{134, 136, 141, 142, 161, 177}, 0.9154, 0.9513, 0.9769, 0.9850, -0.47584},
	}
)

// sklearnScores reads testdata/sklearn_scores.csv: per row of the seed-0
// task, IsolationForest's score_samples and EllipticEnvelope's D².
func sklearnScores(tb testing.TB, name string) (iso, ee []float64) {
	tb.Helper()
	f, err := os.Open("testdata/sklearn_scores.csv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r[0] != name {
			continue
		}
		a, _ := strconv.ParseFloat(r[2], 64)
		b, _ := strconv.ParseFloat(r[3], 64)
		iso, ee = append(iso, a), append(ee, b)
	}
	return iso, ee
}

func scores(tb testing.TB, a anomaly.Algorithm, x *mat.Dense, seed uint64) ([]float64, anomaly.Model) {
	tb.Helper()
	m, err := a.Fit(x, anomaly.Options{Seed: seed, Workers: 2})
	if err != nil {
		tb.Fatalf("%s.Fit error %v", a.Key(), err)
	}
	r, _ := x.Dims()
	s := make([]float64, r)
	m.Score(x, s)
	return s, m
}

// TestIsolationForestReference compares the forest with scikit-learn's
// IsolationForest(random_state=0) of the same size (ψ and trees of
// forestSize) on the seed-0 tasks. Both are
// randomised, so the tolerances are statistical: the Spearman correlation
// of our scores with scikit-learn's must be at least what scikit-learn
// reaches between its own random_state 0 and 1, less 0.03, for each of 5
// seeds of ours; the mean score_samples within 0.01.
func TestIsolationForestReference(t *testing.T) {
	for _, c := range []struct {
		name   string
		normal []string
		tk     labelled
	}{{"breast_cancer", benign, breastTasks[0]}, {"wine", wineNormal, wineTasks[0]}} {
		skIso, _ := sklearnScores(t, c.name)
		x, _ := task(t, c.name, c.normal, c.tk.picked)
		for seed := range uint64(5) {
			s, m := scores(t, anomaly.IsolationForest{}, x, seed)
			if rho := spearman(s, skIso); rho < c.tk.sizedSelfRank-0.03 {
				t.Errorf("%s seed %d: Spearman(ours, scikit-learn) = %.4f, want ≥ %.4f − 0.03", c.name, seed, rho, c.tk.sizedSelfRank)
			}
			var mean float64
			for _, v := range s {
				mean += (v + m.Offset()) / float64(len(s))
			}
			if math.Abs(mean-c.tk.sizedMean) > 0.01 {
				t.Errorf("%s seed %d: mean raw score %.5f, want %.5f ± 0.01", c.name, seed, mean, c.tk.sizedMean)
			}
		}
	}
}

// TestQuality is the labelled-task check of issue 15 (tasks built as in
// testdata/reference.py, seeds 0…4 for the anomalous rows and for our
// fits): mean ROC-AUC over the seeds of our Isolation Forest within 0.02
// of scikit-learn's IsolationForest of the same size, of our robust
// Mahalanobis within 0.02 of EllipticEnvelope's, and our Isolation
// Forest, the champion, within 0.02 of the better of scikit-learn's
// IsolationForest at its defaults and EllipticEnvelope.
func TestQuality(t *testing.T) {
	for _, c := range []struct {
		name   string
		normal []string
		tasks  []labelled
	}{{"breast_cancer", benign, breastTasks}, {"wine", wineNormal, wineTasks}} {
		var iso, mcd, skIso, skSized, skEE float64
		for s, tk := range c.tasks {
			x, y := task(t, c.name, c.normal, tk.picked)
			a, _ := scores(t, anomaly.IsolationForest{}, x, uint64(s))
			b, _ := scores(t, anomaly.RobustMahalanobis{}, x, uint64(s))
			k := float64(len(c.tasks))
			iso += aucOf(y, negate(a)) / k
			mcd += aucOf(y, negate(b)) / k
			skIso += tk.iso / k
			skSized += tk.sized / k
			skEE += tk.ee / k
		}
		t.Logf("%s: mean ROC-AUC ours iforest %.4f, robust Mahalanobis %.4f; scikit-learn IsolationForest %.4f (same size %.4f), EllipticEnvelope %.4f",
			c.name, iso, mcd, skIso, skSized, skEE)
		if iso < skSized-0.02 {
			t.Errorf("%s: Isolation Forest AUC %.4f, want ≥ scikit-learn's same-size %.4f − 0.02", c.name, iso, skSized)
		}
		if mcd < skEE-0.02 {
			t.Errorf("%s: robust Mahalanobis AUC %.4f, want ≥ EllipticEnvelope's %.4f − 0.02", c.name, mcd, skEE)
		}
		if sk := max(skIso, skEE); iso < sk-0.02 {
			t.Errorf("%s: champion (Isolation Forest) AUC %.4f, want ≥ scikit-learn's best %.4f − 0.02", c.name, iso, sk)
		}
	}
}

// mcdReference is what reference.py prints for MinCovDet(random_state=0).
type mcdReference struct {
	loc, diag, dist8 []float64
	distSum, logDet  float64
}

var (
	mcdWine = mcdReference{
		loc:     []float64{13.134198473282437, 2.340381679389312, 2.3800763358778623, 19.232824427480917, 98.5114503816794, 2.3396183206106858, 2.10206106870229, 0.366793893129771, 1.5758778625954204, 5.005648847328245, 0.9672977099236642, 2.7209160305343505, 800.3664122137404},
		diag:    []float64{0.6141190140434709, 1.1549258085193168, 0.05949694073771926, 9.002510343220099, 142.76895285822505, 0.3645090146261871, 1.0003033855835908, 0.012641629275683233, 0.2214288095099353, 4.2109054202948615, 0.0417132777810151, 0.4365808402773731, 109120.59856651713},
		dist8:   []float64{14.397068382275696, 12.9368768330089, 13.091220041960261, 14.577763555017317, 8.341650391048253, 7.41564916133159, 15.058398355903961, 11.463151301748827},
		distSum: 3874.934092137935, logDet: -7.3934974204315385,
	}
	mcdBenign = mcdReference{
		loc:     []float64{12.42703398058252, 17.762330097087364, 79.59577669902913, 480.50194174757263, 0.0903101941747573, 0.06837902912621355, 0.03231677524271845, 0.021833995145631075, 0.16956796116504838, 0.06030004854368932, 0.24665582524271865, 1.0486368932038839, 1.7139242718446601, 18.956014563106795, 0.00612317961165048, 0.014739820388349515, 0.01663860970873787, 0.007862213592233014, 0.018086456310679608, 0.0024861470873786414, 13.716917475728158, 23.755533980582516, 88.77839805825248, 583.3063106796116, 0.12387563106796116, 0.1603381067961165, 0.1365928495145631, 0.07107694660194178, 0.27152475728155334, 0.07523684466019424},
		diag:    []float64{1.7654665182627949, 15.483420784239797, 76.72285255207842, 10442.271064190782, 0.00011987106209821854, 0.00047381258061080216, 0.0003926543649489501, 0.00012349628914075307, 0.00036615528419266653, 1.4955624754925057e-05, 0.0049424027573286835, 0.15733334863889142, 0.23075103416815912, 35.025005101729676, 3.137168040555188e-06, 4.560399171045811e-05, 0.00010051388124718725, 7.756213206805541e-06, 1.936188210246017e-05, 7.237993733653032e-07, 2.2249139203742114, 28.908786850787077, 103.21479112310311, 15853.337775709311, 0.0002739574158638891, 0.0041431566289400505, 0.00689787565726376, 0.0008523534659437502, 0.0013334871055236124, 7.204501285936469e-05},
		dist8:   []float64{25.47933727344681, 39.881541747772076, 81.20490444175512, 216.0204601629287, 92.85727734123867, 46.232294616416446, 29.135933402971496, 32.6221240286074},
		distSum: 76183.92514943445, logDet: -207.57985211040224,
	}
	mcdBreast = mcdReference{
		loc:     []float64{12.673370716510906, 18.176853582554514, 81.49971962616819, 503.8629283489096, 0.09220021806853589, 0.07750732087227417, 0.044838977258566996, 0.02776369158878505, 0.17205171339563868, 0.061119937694704064, 0.2708327102803738, 1.099033333333333, 1.8988651090342676, 21.460087227414324, 0.006461931464174456, 0.01744030218068536, 0.02067307040498443, 0.008951554517133961, 0.018619218068535826, 0.0028230320872274146, 14.118560747663564, 24.34429906542056, 91.82744548286607, 624.7638629283489, 0.12717482866043603, 0.1860808099688472, 0.17412578504672893, 0.08283570404984425, 0.27514361370716517, 0.07806607476635515},
		diag:    []float64{3.1052400775225384, 16.056706299434207, 139.66668496811945, 19923.995354664647, 0.00013669070244465802, 0.0008152877161867605, 0.0010627282207287352, 0.0003104434863067516, 0.0004307364534505681, 2.0758621179918677e-05, 0.007863813229102975, 0.20954872558670817, 0.3997426316798167, 73.71055802977456, 4.902390101221845e-06, 7.714486409248747e-05, 0.00017418049369753537, 1.2701012807775544e-05, 2.901602325462681e-05, 1.2299213047959552e-06, 4.613548732291031, 32.654200832678264, 214.85329067070384, 37481.67738570085, 0.00036071416141924097, 0.0073346460292504885, 0.013217997901576847, 0.0016044291120276785, 0.0015161035184052955, 0.00012049703256761867},
		dist8:   []float64{2079.1558749030855, 422.6174424812626, 460.7892327808899, 813.876238816471, 865.4053180874115, 81.92988474080016, 164.08385001902133, 73.11465310356792},
		distSum: 344862.43522117066, logDet: -193.00590458404523,
	}
)

// TestMCDReference compares the robust fit with scikit-learn's
// MinCovDet(random_state=0) (location_, covariance_, dist_ after
// reweighting). FastMCD's random starts differ between the two, so they
// may settle on different near-optimal supports; for each of 3 seeds (1
// on all breast-cancer rows):
// the raw MCD objective (log det of the raw covariance) within 0.1 of
// scikit-learn's (or lower: a better optimum), every location within
// 0.25 robust standard deviations, every covariance diagonal within 15 %
// and the sum of distances within 6 %. On the benign rows our seed 1
// lands on scikit-learn's support, and then correction and reweighting
// must agree to 1e-8 relative.
func TestMCDReference(t *testing.T) {
	wine, _ := loadCSV(t, "wine")
	bc, lab := loadCSV(t, "breast_cancer")
	var ben []int
	for i, l := range lab {
		if l == "benign" {
			ben = append(ben, i)
		}
	}
	for _, c := range []struct {
		name  string
		x     *mat.Dense
		ref   mcdReference
		exact uint64 // a seed that finds scikit-learn's support, or 99
		seeds int    // 3, or 1 where 500 random starts make a fit slow (skipped under -race)
	}{{"wine", wine, mcdWine, 99, 3}, {"benign", rows(bc, ben), mcdBenign, 1, 3}, {"breast_cancer", bc, mcdBreast, 99, 1}} {
		if c.seeds == 1 && raceOn {
			continue
		}
		for seed := range uint64(c.seeds) {
			e, err := anomaly.FitMCD(c.x, anomaly.Options{Seed: seed, Workers: 2})
			if err != nil {
				t.Fatalf("FitMCD(%s) error %v", c.name, err)
			}
			if e.Projected {
				t.Errorf("FitMCD(%s): projected, want the full-rank path", c.name)
			}
			var ch mat.Cholesky
			ch.Factorize(e.RawCov)
			if ld := ch.LogDet(); ld > c.ref.logDet+0.1 {
				t.Errorf("FitMCD(%s, seed %d): raw log det %.4f, want ≤ scikit-learn's %.4f + 0.1", c.name, seed, ld, c.ref.logDet)
			}
			sum := floats.Sum(e.Dist)
			if relDiff(sum, c.ref.distSum) > 0.06 {
				t.Errorf("FitMCD(%s, seed %d): sum of D² %.2f, want %.2f ± 6 %%", c.name, seed, sum, c.ref.distSum)
			}
			tol := 1e-8
			for j, want := range c.ref.loc {
				got, v := e.Loc[j], e.Cov.At(j, j)
				if seed == c.exact {
					if relDiff(got, want) > tol || relDiff(v, c.ref.diag[j]) > tol {
						t.Errorf("FitMCD(%s, seed %d): column %d location %.17g, variance %.17g, want %.17g, %.17g", c.name, seed, j, got, v, want, c.ref.diag[j])
					}
					continue
				}
				if math.Abs(got-want) > 0.25*math.Sqrt(c.ref.diag[j]) || relDiff(v, c.ref.diag[j]) > 0.15 {
					t.Errorf("FitMCD(%s, seed %d): column %d location %.6g, variance %.6g, want %.6g ± 0.25 sd, %.6g ± 15 %%", c.name, seed, j, got, v, want, c.ref.diag[j])
				}
			}
			if seed == c.exact {
				for i, want := range c.ref.dist8 {
					if relDiff(e.Dist[i], want) > tol {
						t.Errorf("FitMCD(%s, seed %d): D²[%d] = %.17g, want %.17g", c.name, seed, i, e.Dist[i], want)
					}
				}
			}
		}
	}
}
