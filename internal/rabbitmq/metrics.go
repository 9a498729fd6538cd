package rabbitmq

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// requestsTotal counts management API requests by HTTP method and status
// code ("error" when no answer came: a transport error or a timeout). It is
// served with controller-runtime's metrics (--metrics-bind-address).
var requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "orderhub_rabbitmq_requests_total",
	Help: "RabbitMQ management API requests by HTTP method and status code (error: no answer).",
}, []string{"method", "code"})

func init() { metrics.Registry.MustRegister(requestsTotal) }

// countingTransport counts every request it passes to next in requestsTotal.
type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	requestsTotal.WithLabelValues(req.Method, statusLabel(res, err)).Inc()
	return res, err
}

// statusLabel is the code label of one request's outcome.
func statusLabel(res *http.Response, err error) string {
	if err != nil || res == nil {
		return "error"
	}
	return strconv.Itoa(res.StatusCode)
}
