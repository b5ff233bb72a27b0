//go:build !assert

package columnar

// poison does nothing without the assert tag (pool_poison.go).
func poison([]byte) {}
