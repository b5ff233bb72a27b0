package columnar_test

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
)

// Get rounds a size up to its class, Put takes back only class-sized
// slices, and sizes outside the classes are made and dropped.
func TestPoolClasses(t *testing.T) {
	var p columnar.Pool[float64]
	for _, n := range []int{columnar.PoolMin, columnar.PoolMin + 1, 16384, 16384*21 + 5, columnar.PoolMax} {
		s := p.Get(n)
		want := 1
		for want < n {
			want <<= 1
		}
		if len(s) != n || cap(s) != want {
			t.Fatalf("Get(%d): len %d cap %d, want cap %d", n, len(s), cap(s), want)
		}
		p.Put(s)
	}
	for _, n := range []int{0, 1, columnar.PoolMin - 1, columnar.PoolMax + 1} {
		if s := p.Get(n); len(s) != n || cap(s) != n {
			t.Fatalf("Get(%d) outside the classes: len %d cap %d", n, len(s), cap(s))
		}
	}
	p.Put(make([]float64, 0, 3000)) // not a class: dropped, not handed out as 4096
	if s := p.Get(3000); cap(s) != 4096 {
		t.Fatalf("Get(3000) after a Put of capacity 3000: cap %d", cap(s))
	}
}

// A PoolAllocator hands out 64-byte aligned, zeroed buffers, keeps the
// head of a buffer it grows, zeroes what growing in place exposes, and
// gives freed buffers out again.
func TestPoolAllocator(t *testing.T) {
	var a columnar.PoolAllocator
	for _, size := range []int{1, 100, 511, 512, 4000, 65536, 1 << 20, columnar.PoolMax + 1} {
		b := a.Allocate(size)
		if len(b) != size || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
			t.Fatalf("Allocate(%d): len %d at %p", size, len(b), unsafe.SliceData(b))
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("Allocate(%d): byte %d is %#x", size, i, b[i])
			}
			b[i] = byte(i)
		}
		g := a.Reallocate(size+size/2+1, b)
		for i := range g {
			if want := byte(i); i >= size {
				want = 0
				if g[i] != want {
					t.Fatalf("Reallocate(%d → %d): byte %d is %#x, want 0", size, len(g), i, g[i])
				}
			} else if g[i] != want {
				t.Fatalf("Reallocate(%d → %d): byte %d is %#x, want %#x", size, len(g), i, g[i], want)
			}
		}
		a.Free(g)
	}
	// A buffer grown within its class, shrunk and grown again reads zeros
	// past the shrunken length.
	b := a.Allocate(1000)
	for i := range b {
		b[i] = 7
	}
	b = a.Reallocate(10, b)
	b = a.Reallocate(900, b)
	for i := 10; i < 900; i++ {
		if b[i] != 0 {
			t.Fatalf("byte %d after shrinking and growing is %#x", i, b[i])
		}
	}
	// Freed buffers come back (some of them: sync.Pool may drop any).
	seen := map[*byte]bool{}
	for range 50 {
		b := a.Allocate(70000)
		seen[unsafe.SliceData(b)] = true
		a.Free(b)
	}
	if len(seen) == 50 {
		t.Fatal("50 allocations after frees reused no buffer")
	}
}

// Arrays built, released and rebuilt through one PoolAllocator from
// concurrent goroutines hold their own values (a checked allocator
// around it finds every buffer freed).
func TestPoolAllocatorArrays(t *testing.T) {
	var pool columnar.PoolAllocator
	mem := memory.NewCheckedAllocator(&pool)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 30 {
				sb := array.NewStringBuilder(mem)
				fb := array.NewFloat64Builder(mem)
				n := 1000 + 997*round
				for i := range n {
					sb.Append(fmt.Sprintf("g%d-r%d-%d", g, round, i))
					if i%7 == 0 {
						fb.AppendNull()
					} else {
						fb.Append(float64(g*1_000_000 + round*10_000 + i))
					}
				}
				s, f := sb.NewStringArray(), fb.NewFloat64Array()
				sb.Release()
				fb.Release()
				for i := range n {
					if want := fmt.Sprintf("g%d-r%d-%d", g, round, i); s.Value(i) != want {
						t.Errorf("string %d: %q, want %q", i, s.Value(i), want)
						return
					}
					if f.IsNull(i) != (i%7 == 0) || (i%7 != 0 && f.Value(i) != float64(g*1_000_000+round*10_000+i)) {
						t.Errorf("float %d: %v (null %v)", i, f.Value(i), f.IsNull(i))
						return
					}
				}
				s.Release()
				f.Release()
			}
		})
	}
	wg.Wait()
	mem.AssertSize(t, 0)
}
