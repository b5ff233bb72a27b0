package columnar

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Pool recycles slices of T by size class: Get(n) returns a slice whose
// capacity is n rounded up to a power of two, and Put returns such a slice
// for the next Get of its class. It serves the large per-batch buffers of a
// request (a predict body's parsed columns, its encoded matrix), so that a
// request reuses memory the last one warmed instead of asking the runtime
// for fresh pages: on a 100 000-row CSV predict, fresh pages cost more than
// the garbage collector (GOGC=400, which lets the heap grow, made the
// request slower, not faster).
//
// Slices under PoolMin elements, or over PoolMax, are neither pooled nor
// kept: Get makes them, Put drops them. Each class is a sync.Pool, so what
// is idle across two garbage collections is freed. A Pool is safe for
// concurrent use; its zero value is ready.
type Pool[T any] struct {
	classes [poolClasses]sync.Pool // class c holds *[]T of capacity 1 << c
}

// The classes a Pool keeps: capacities 1<<poolMinShift to 1<<poolMaxShift
// elements (PoolMin, PoolMax).
const (
	poolMinShift = 9
	poolMaxShift = 24
	poolClasses  = poolMaxShift + 1

	PoolMin = 1 << poolMinShift
	PoolMax = 1 << poolMaxShift
)

// poolClass is the class of a request for n elements: ⌈log₂ n⌉; ok false
// outside [PoolMin, PoolMax].
func poolClass(n int) (c int, ok bool) {
	if n < PoolMin || n > PoolMax {
		return 0, false
	}
	return bits.Len(uint(n - 1)), true
}

// Get returns a slice of length n. Its contents are whatever the last user
// left: clear it when it must start zeroed.
func (p *Pool[T]) Get(n int) []T {
	c, ok := poolClass(n)
	if !ok {
		return make([]T, n)
	}
	if s, _ := p.classes[c].Get().(*[]T); s != nil {
		return (*s)[:n]
	}
	return make([]T, n, 1<<c)
}

// Put gives s back for reuse; it must not be used after. A slice whose
// capacity is not one of the pool's classes (one Get made outside them,
// or one not from Get) is dropped.
func (p *Pool[T]) Put(s []T) {
	c := cap(s)
	if c < PoolMin || c > PoolMax || c&(c-1) != 0 {
		return
	}
	s = s[:0]
	p.classes[bits.Len(uint(c-1))].Put(&s)
}

// PoolAllocator is an Arrow memory.Allocator that recycles the buffers it
// frees through a Pool of bytes: an Arrow reader whose batches are released
// as the request goes (a predict body) then parses each batch into the last
// one's buffers. Buffers are 64-byte aligned and zeroed, as
// memory.GoAllocator's are. Sizes outside the Pool's classes come from a
// plain GoAllocator. A buffer used after its array's last Release would
// read another batch's values: under the assert build tag, Free fills the
// buffer with 0xA5 first, so a test that does so sees garbage.
type PoolAllocator struct {
	pool  Pool[byte]
	plain memory.GoAllocator
}

var _ memory.Allocator = (*PoolAllocator)(nil)

// poolAlign is Arrow's buffer alignment.
const poolAlign = 64

// Allocate returns size zeroed bytes.
func (a *PoolAllocator) Allocate(size int) []byte {
	if _, ok := poolClass(size); !ok {
		return a.plain.Allocate(size)
	}
	b := a.pool.Get(size)
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%poolAlign != 0 {
		// The runtime places power-of-two blocks of 512 bytes or more on
		// aligned addresses, but does not promise to; such a block is
		// dropped.
		return a.plain.Allocate(size)
	}
	clear(b)
	return b
}

// Reallocate returns b resized to size bytes, its first bytes kept and
// any bytes past them zeroed.
func (a *PoolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free gives b back for reuse. A buffer of a Pool class's capacity goes
// to the pool: every buffer this allocator hands out is 64-byte aligned
// (the pool's, checked, and GoAllocator's), so any of them may be handed
// out again; others are dropped.
func (a *PoolAllocator) Free(b []byte) {
	poison(b[:cap(b)])
	a.pool.Put(b)
}
