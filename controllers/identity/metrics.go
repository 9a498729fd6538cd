package identity

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Prometheus counters of the identity controller, served with
// controller-runtime's own metrics (the manager's --metrics-bind-address).
var (
	// driftRepairs counts the changes a resync made to Keystone because it
	// no longer matched an unchanged spec (an object deleted or a field edited
	// out of band), per kind.
	driftRepairs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "orderhub_identity_drift_repairs_total",
		Help: "Changes the identity controller made to Keystone to repair drift (the spec was unchanged), by kind.",
	}, []string{"kind"})
	// keystoneRequests counts the HTTP requests sent to Keystone, including
	// authentication and password probes, by method and status code ("error"
	// when no response came back).
	keystoneRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "orderhub_identity_keystone_requests_total",
		Help: "HTTP requests the identity controller sent to Keystone, by method and status code (error: no response).",
	}, []string{"method", "code"})

	registerMetrics sync.Once
)

// registerMetricsOnce adds the counters to controller-runtime's registry.
func registerMetricsOnce() {
	registerMetrics.Do(func() { crmetrics.Registry.MustRegister(driftRepairs, keystoneRequests) })
}

// countingTransport counts each request to Keystone in keystoneRequests.
type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	keystoneRequests.WithLabelValues(req.Method, code).Inc()
	return resp, err
}

// countRequests wraps a transport with countingTransport (nil: the default transport).
func countRequests(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return countingTransport{next: next}
}
