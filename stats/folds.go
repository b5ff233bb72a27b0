package stats

import "math/rand/v2"

// StratifiedFolds assigns each row to one of k folds so every class is
// spread over the folds as evenly as its count allows (scikit-learn's
// StratifiedKFold with shuffling, in spirit): rows of each class are
// shuffled by rng and dealt round-robin, continuing the deal across
// classes so fold sizes differ by at most one. y holds class indices in
// [0, nClasses); k ≥ 1.
func StratifiedFolds(y []int, nClasses, k int, rng *rand.Rand) []int {
	byClass := make([][]int, nClasses)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	fold := make([]int, len(y))
	next := 0
	for _, rows := range byClass {
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		for _, r := range rows {
			fold[r] = next
			next = (next + 1) % k
		}
	}
	return fold
}

// FoldRows returns the positions whose fold (in fold, one per row) is not
// f, the training rows, and those whose fold is f, the held-out ones,
// each increasing.
func FoldRows(fold []int, f int) (train, valid []int) {
	for i, g := range fold {
		if g == f {
			valid = append(valid, i)
		} else {
			train = append(train, i)
		}
	}
	return train, valid
}
