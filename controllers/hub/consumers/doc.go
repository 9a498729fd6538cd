// Package consumers rolls the workloads that consume a delivered credential
// Secret when the Secret switches to a new credential generation, one
// workload at a time, opt-in by annotation (docs/reference/consumers.md).
// Every delivering kind uses it the same way: a Step configured with its
// Secret, generation, status and events, run after its Secret is written, and
// Enqueue in its watches. It imports no kind's package.
package consumers
