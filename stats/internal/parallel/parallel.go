// Package parallel runs the index loops of the model fits in stats/regress
// and stats/classify (cross-validation folds, chunks of validation rows)
// on a bounded number of goroutines. It imports nothing of the module.
package parallel

import (
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n) on at most workers goroutines (at
// least one) and returns when all calls have. Workers take indices in
// turn; callers write results to slot i, so the outcome does not depend
// on scheduling or on workers.
func For(n, workers int, fn func(i int)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
