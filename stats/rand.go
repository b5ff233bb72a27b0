package stats

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
)

// SeedOf turns a session id (its 16 bytes) into the session seed s of
// MODELLING §0: the big-endian uint64 of the first 8 bytes of SHA-256 of
// the id.
func SeedOf(id [16]byte) uint64 {
	sum := sha256.Sum256(id[:])
	return binary.BigEndian.Uint64(sum[:8])
}

// Rand returns the random source of one consumer (MODELLING §0): a PCG
// seeded with (seed, FNV-1a-64 of name), e.g. name "split", "rf/tree17".
// Two calls with the same arguments give the same stream, so a session
// that runs again draws the same numbers whatever the scheduling.
func Rand(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
