// Package tree is the decision-tree machinery the regression and
// classification families share: CART trees grown on presorted columns
// with a variance or Gini criterion and sample weights (cart.go, the
// random forests), histogram trees grown best-first from gradients and
// Hessians (hist.go, the gradient boosting), and the flat node layout
// both predict with and serialise (flat.go).
//
// It knows no family: losses, early stopping and model formats stay in
// stats/regress and stats/classify. It imports stats (for Rand) and
// gonum only.
package tree
