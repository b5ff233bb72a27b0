//go:build race

package forecast

// tslmRace reports whether the race detector is on (it slows the fits
// about eightfold, so timing bounds are not checked under it).
const tslmRace = true
