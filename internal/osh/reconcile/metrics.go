package reconcile

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// DriftRepaired counts the repairs a resync made because the backend no
// longer matched an unchanged desired state, by controller (identity,
// topology) and kind; served with controller-runtime's metrics
// (--metrics-bind-address; docs/identity.md, docs/topology.md).
var DriftRepaired = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "orderhub_osh_drift_repaired_total",
	Help: "Repairs an OSH controller made to its backend because a resync found it changed (the desired state was unchanged), by controller and kind.",
}, []string{"controller", "kind"})

func init() { crmetrics.Registry.MustRegister(DriftRepaired) }
