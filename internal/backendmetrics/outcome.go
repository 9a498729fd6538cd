package backendmetrics

import "net/http"

// Outcome values of orderhub_backend_requests_total.
const (
	// OutcomeError: no HTTP response (connection refused, TLS, timeout).
	OutcomeError = "error"
	// Outcome2xx .. Outcome5xx: the response's status class.
	Outcome2xx = "2xx"
	Outcome3xx = "3xx"
	Outcome4xx = "4xx"
	Outcome5xx = "5xx"
)

// Outcome classifies one round trip: OutcomeError when err is set or there
// is no response, else the status class (1xx, which clients do not see as a
// final answer, and codes beyond 599 count as 5xx).
func Outcome(resp *http.Response, err error) string {
	if err != nil || resp == nil {
		return OutcomeError
	}
	switch c := resp.StatusCode; {
	case c < 300:
		return Outcome2xx
	case c < 400:
		return Outcome3xx
	case c < 500:
		return Outcome4xx
	default:
		return Outcome5xx
	}
}
