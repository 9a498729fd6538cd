package corpus

import (
	"fmt"
	"strings"
)

// The API server's own messages for OpenAPI schema rules (kube-apiserver
// v1.37, k8s.io/apiextensions-apiserver validation), for fixtures of
// +kubebuilder:validation markers. CEL rules use the Msg* constants of the API
// package and the webhook's own constants instead.

func msgPattern(path, re string) string {
	return fmt.Sprintf("%s in body should match '%s'", path, re)
}

func msgTooLong(path string, n int) string {
	return fmt.Sprintf("%s: Too long: may not be more than %d bytes", path, n)
}

func msgMinLength(path string, n int) string {
	return fmt.Sprintf("%s in body should be at least %d chars long", path, n)
}

func msgRequired(path string) string { return path + ": Required value" }

func msgMinimum(path string, n int) string {
	return fmt.Sprintf("%s in body should be greater than or equal to %d", path, n)
}

func msgMaximum(path string, n int64) string {
	return fmt.Sprintf("%s in body should be less than or equal to %d", path, n)
}

func msgUnsupported(path, value string, allowed ...string) string {
	q := make([]string, len(allowed))
	for i, a := range allowed {
		q[i] = `"` + a + `"`
	}
	return fmt.Sprintf(`%s: Unsupported value: "%s": supported values: %s`, path, value, strings.Join(q, ", "))
}

func msgTooMany(path string, n, max int) string {
	return fmt.Sprintf("%s: Too many: %d: must have at most %d items", path, n, max)
}

func msgMinItems(path string, n int) string {
	return fmt.Sprintf("%s in body should have at least %d items", path, n)
}

func msgDuplicate(path string) string { return path + ": Duplicate value: " }

// Patterns of the schema, as the API server quotes them.
const (
	reDNSLabel    = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	reNamePrefix  = `^[^,\s\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`
	reNoComma     = `^[^,\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`
	reEndpointURL = `^https?://[^\s/]+`
	reDuration    = `^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
)
