// Package columnar is the Arrow vocabulary every Vatic package shares: the
// API's column data types and roles, how each maps to an Arrow type, the
// schema metadata keys that carry them through record batches, lenient date
// parsing and formatting, QuoteIdent, the only way a user-chosen name
// reaches SQL, and Pool and PoolAllocator, which recycle the large buffers
// of a request's batches (a predict body's columns).
//
// columnar imports nothing from this module; it depends only on arrow-go and
// the standard library, so every other package may import it.
package columnar
