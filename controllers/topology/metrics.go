package topology

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// repairsTotal counts declarations that repaired drift found in the broker
// (EventReasonDriftRepaired), by kind. It is served with controller-runtime's
// metrics (--metrics-bind-address).
var repairsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "orderhub_topology_repairs_total",
	Help: "Declarations that repaired a broker object found missing or changed by a resync, by kind.",
}, []string{"kind"})

// dependencyWaitsTotal counts reconciles of a resource never declared that
// sent nothing because a resource it depends on had not reported yet
// (dependency.go), by kind.
var dependencyWaitsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "orderhub_topology_dependency_waits_total",
	Help: "Reconciles of a resource never declared that waited, without a request, for a Queue or Exchange resource it depends on to report Ready, by kind.",
}, []string{"kind"})

func init() { metrics.Registry.MustRegister(repairsTotal, dependencyWaitsTotal) }
