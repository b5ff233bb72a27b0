package regress

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/internal/parallel"
	"github.com/vaticml/vatic/stats/internal/scale"
)

// The linear family on rows with words (issue 16): OLS, ridge and lasso
// never build the n × (dense + words) matrix. They form the Gram matrix
// ZᵀZ of the standardised columns and Zᵀy, (d+W)² and d+W numbers, from
// the dense block and the CSR block, with the centring and scaling done
// implicitly (the words' means and sds from the CSR's column sums,
// stats.CSR.ColumnMeanSD), and solve there: OLS and ridge by the
// eigendecomposition ZᵀZ = V·Λ·Vᵀ (Λ = S², S the singular values of Z),
// lasso by coordinate descent on the Gram as on dense rows. Without words
// each keeps its dense path (the thin SVD of Z, bit for bit the models of
// before).

// gramCut is the relative singular value below which a direction of Z is
// taken as zero: a direction is kept when λ_k > (gramCut·s_max)², with
// s_max² the largest eigenvalue of ZᵀZ. The Gram squares Z's condition
// number, so its eigenvalues carry rounding errors of about ε·s_max² and a
// singular value below √ε·s_max ≈ 1.5e-8·s_max is noise; 5e-6 keeps a
// margin of a few hundred above that (the dense OLS's SVD cut-off,
// max(n, p)·ε·s_max, is not reachable through the Gram). Collinear words
// (two that always occur together) and a full one-hot block are the
// directions it drops.
const gramCut = 5e-6

// gramRows is the unit of parallel work over rows (the ridge's
// leave-one-out errors): fixed so that the sums do not depend on the
// worker count.
const gramRows = 512

// stdGram is the sufficient statistics of a linear fit on standardised
// columns: the standardiser of the columns (X's, then the words'), ȳ, and
// for Z the z-scored columns (a zero-variance column all zeros) and the
// centred target y − ȳ: G = ZᵀZ (p × p, row-major), c = Zᵀ(y − ȳ) and
// yy = ‖y − ȳ‖².
type stdGram struct {
	n, p  int
	st    scale.Standardizer
	ymean float64
	g, c  []float64
	yy    float64
}

// newStdGram forms d's stdGram (d has words) in one pass over the rows:
// the dense block centred explicitly, the words through
// Σ_i (x_ij − μ_j)(x_ik − μ_k) = Σ_i x_ij·x_ik − n·μ_j·μ_k over their
// non-zeros.
func newStdGram(d Data) *stdGram {
	n, dc, wc := d.rows(), d.denseCols(), d.wordCols()
	p := dc + wc
	gr := &stdGram{n: n, p: p, g: make([]float64, p*p), c: make([]float64, p)}
	if dc > 0 {
		gr.st = scale.New(d.X)
	}
	wmean, wsd := d.Words.ColumnMeanSD()
	gr.st.Mean = append(gr.st.Mean, wmean...)
	gr.st.SD = append(gr.st.SD, wsd...)
	var yc []float64
	gr.ymean, yc = linearCenterY(d.Y)
	var ysum float64 // Σ(y − ȳ), 0 up to rounding
	for _, v := range yc {
		gr.yy += v * v
		ysum += v
	}
	g, c := gr.g, gr.c
	// The dense block: G_dd = XcᵀXc, c_d = Xcᵀyc, and the cross terms
	// G_dw[a][j] = Σ_i xc_ia·x_ij − μ_j·Σ_i xc_ia.
	xc := make([]float64, dc)
	colsum := make([]float64, dc)
	for i := range n {
		if dc > 0 {
			for a, v := range d.X.RawRowView(i) {
				xc[a] = v - gr.st.Mean[a]
			}
		}
		yi := yc[i]
		for a, va := range xc {
			colsum[a] += va
			c[a] += va * yi
			row := g[a*p : a*p+dc]
			for b := a; b < dc; b++ {
				row[b] += va * xc[b]
			}
		}
		cols, vals := d.Words.Row(i)
		for k, j := range cols {
			jj := dc + int(j)
			v := vals[k]
			c[jj] += v * yi
			for a, va := range xc {
				g[a*p+jj] += va * v
			}
			row := g[jj*p:]
			for l := k; l < len(cols); l++ {
				row[dc+int(cols[l])] += v * vals[l]
			}
		}
	}
	for j := range wc {
		mj := wmean[j]
		jj := dc + j
		c[jj] -= mj * ysum
		for a := range dc {
			g[a*p+jj] -= mj * colsum[a]
		}
		row := g[jj*p:]
		for k := j; k < wc; k++ {
			row[dc+k] -= float64(n) * mj * wmean[k]
		}
	}
	// Scale to Z (zero-variance columns to 0) and mirror the upper
	// triangle.
	sd := gr.st.SD
	inv := make([]float64, p)
	for j, s := range sd {
		if s > 0 {
			inv[j] = 1 / s
		}
	}
	for a := range p {
		c[a] *= inv[a]
		for b := a; b < p; b++ {
			v := g[a*p+b] * inv[a] * inv[b]
			g[a*p+b], g[b*p+a] = v, v
		}
	}
	return gr
}

// eigenOf checks d (at least minRows rows) and returns its stdGram and
// the Gram's eigendecomposition.
func eigenOf(d Data, minRows int) (*stdGram, *gramEigen, error) {
	if err := checkData(d, minRows); err != nil {
		return nil, nil, err
	}
	gr := newStdGram(d)
	ge, err := gr.eigen()
	return gr, ge, err
}

// gramEigen is the eigendecomposition of a stdGram's G restricted to the
// directions above the gramCut: values λ_k and vectors v_k (the columns
// of vecs, p × r), with e_k = v_kᵀc.
type gramEigen struct {
	lambda []float64
	vecs   *mat.Dense
	e      []float64
}

// errGramEigen reports an eigendecomposition that did not converge (not
// expected for finite input).
var errGramEigen = errors.New("regress: eigendecomposition of the Gram matrix did not converge")

// eigen decomposes G with mat.EigenSym and keeps the directions with
// λ_k > (gramCut·s_max)², s_max² the largest eigenvalue.
func (gr *stdGram) eigen() (*gramEigen, error) {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(gr.p, gr.g), true) {
		return nil, errGramEigen
	}
	vals := es.Values(nil) // ascending
	var all mat.Dense
	es.VectorsTo(&all)
	top := 0.0
	if len(vals) > 0 {
		top = vals[len(vals)-1]
	}
	cut := gramCut * gramCut * top
	var keep []int
	for k := len(vals) - 1; k >= 0; k-- {
		if vals[k] > cut && vals[k] > 0 {
			keep = append(keep, k)
		}
	}
	ge := &gramEigen{lambda: make([]float64, len(keep)), e: make([]float64, len(keep))}
	if len(keep) == 0 {
		return ge, nil
	}
	ge.vecs = mat.NewDense(gr.p, len(keep), nil)
	for k, src := range keep {
		ge.lambda[k] = vals[src]
		var e float64
		for j := range gr.p {
			v := all.At(j, src)
			ge.vecs.Set(j, k, v)
			e += v * gr.c[j]
		}
		ge.e[k] = e
	}
	return ge, nil
}

// solve returns β_z = Σ_k v_k·e_k/(λ_k + lambda): the least-squares
// solution of minimum norm (on the standardised scale) at lambda = 0,
// ridge's at lambda = n·α.
func (ge *gramEigen) solve(p int, lambda float64) []float64 {
	beta := make([]float64, p)
	for k, l := range ge.lambda {
		w := ge.e[k] / (l + lambda)
		for j := range p {
			beta[j] += ge.vecs.At(j, k) * w
		}
	}
	return beta
}

// looMSE is ridgeSVD.looMSE on rows with words: for each α the mean
// squared leave-one-out residual, +Inf where some row has leverage 1.
// With w_ik = z_iᵀv_k (z_i row i standardised), the hat diagonal is
// h_ii = 1/n + Σ_k w_ik²/(λ_k + nα) and the fit Σ_k w_ik·e_k/(λ_k + nα),
// the SVD's U_ik = w_ik/s_k substituted; the rows are read one at a time
// (the words of row i through its non-zeros, their centring folded into
// a constant per direction), on up to workers goroutines, the sums in a
// fixed order.
func (ge *gramEigen) looMSE(d Data, gr *stdGram, alphas []float64, workers int) []float64 {
	n, dc, r := gr.n, d.denseCols(), len(ge.lambda)
	// a_jk = v_jk/sd_j for the word columns, and the constant
	// Σ_j μ_j·a_jk their centring subtracts.
	a := make([]float64, gr.p*r)
	shift := make([]float64, r)
	for j := range gr.p {
		if sd := gr.st.SD[j]; sd > 0 {
			for k := range r {
				a[j*r+k] = ge.vecs.At(j, k) / sd
			}
		}
		if j >= dc {
			for k := range r {
				shift[k] += gr.st.Mean[j] * a[j*r+k]
			}
		}
	}
	inv := make([]float64, len(alphas)*r) // 1/(λ_k + nα)
	for al, alpha := range alphas {
		for k, l := range ge.lambda {
			inv[al*r+k] = 1 / (l + float64(n)*alpha)
		}
	}
	chunks := (n + gramRows - 1) / gramRows
	sses := make([][]float64, chunks)
	parallel.For(chunks, workers, func(ch int) {
		sse := make([]float64, len(alphas))
		w := make([]float64, r)
		for i := ch * gramRows; i < min(n, (ch+1)*gramRows); i++ {
			for k := range w {
				w[k] = -shift[k]
			}
			if dc > 0 {
				for j, x := range d.X.RawRowView(i) {
					if z := x - gr.st.Mean[j]; z != 0 {
						for k, ajk := range a[j*r : (j+1)*r] {
							w[k] += z * ajk
						}
					}
				}
			}
			cols, vals := d.Words.Row(i)
			for l, j := range cols {
				x, at := vals[l], (dc+int(j))*r
				for k, ajk := range a[at : at+r] {
					w[k] += x * ajk
				}
			}
			yi := d.Y[i] - gr.ymean
			for al := range alphas {
				h, fit := 1/float64(n), 0.0
				for k, ik := range inv[al*r : (al+1)*r] {
					wk := w[k] * ik
					h += wk * w[k]
					fit += wk * ge.e[k]
				}
				den := 1 - h
				if !(den > 1e-12) {
					sse[al] = math.Inf(1)
					continue
				}
				e := (yi - fit) / den
				sse[al] += e * e
			}
		}
		sses[ch] = sse
	})
	return meanOfChunks(sses, len(alphas), n)
}

// sparseDot writes b + x_i·coef into dst[i] for every row of x (a
// *stats.SparseMatrix of len(coef) columns): the dense block's dot product
// and the words' over their non-zeros.
func sparseDot(x *stats.SparseMatrix, coef []float64, b float64, dst []float64) {
	n, p := x.Dims()
	if n != len(dst) || p != len(coef) {
		predictRows(x, len(coef), dst, nil) // panics with the mismatch
	}
	dc := x.DenseCols()
	for i := range dst {
		s := b
		if dc > 0 {
			for j, v := range x.Dense.RawRowView(i) {
				s += coef[j] * v
			}
		}
		if x.Words != nil {
			cols, vals := x.Words.Row(i)
			for k, j := range cols {
				s += coef[dc+int(j)] * vals[k]
			}
		}
		dst[i] = s
	}
}
