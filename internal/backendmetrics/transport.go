package backendmetrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Backend label values.
const (
	BackendKeystone = "keystone"
)

var requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orderhub_backend_requests_total",
	Help: "HTTP requests the hub sent to a backend, by backend and outcome (the status class, or error without a response)."},
	[]string{"backend", "outcome"})

func init() { metrics.Registry.MustRegister(requests) }

// Transport returns next counting every round trip to backend. Our own
// rather than promhttp.InstrumentRoundTripperCounter, which skips round
// trips that fail without a response, the outcome an unreachable backend has.
func Transport(backend string, next http.RoundTripper) http.RoundTripper {
	return roundTripper{backend: backend, next: next}
}

type roundTripper struct {
	backend string
	next    http.RoundTripper
}

func (t roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	requests.WithLabelValues(t.backend, Outcome(resp, err)).Inc()
	return resp, err
}
