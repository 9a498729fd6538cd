// Package secretcache keeps the data of Secrets a controller did not write out
// of its controller-runtime cache, while reads through its client still return
// whole Secrets (docs/reference/openbao.md, "What a tenant can and cannot do").
//
// Two parts, used together on one cluster's cache and client:
//   - Strip, in the cache's transform, drops Data and StringData of a Secret
//     that Keep does not select and marks it with AnnotationDataNotCached;
//   - NewClient wraps the cluster's client: a Get or List that meets a marked
//     Secret reads it by name from the API server instead, and remembers the
//     result while the cached resourceVersion stays the same.
//
// controller-runtime offers per-type label selectors (cache.ByObject) and
// metadata-only watches, but neither serves a Secret read by name that carries
// no label the hub could select, such as a ControlPlane's admin credential or
// a CA bundle; this package is the by-name read beside a cache of metadata.
package secretcache
