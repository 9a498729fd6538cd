package orders

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/apply"
)

// The hub's order metrics on controller-runtime's registry, served by the
// manager's metrics endpoint (docs/reference/metrics.md). Per-order series
// carry kind, cluster ("" for the management cluster), namespace and name;
// ForgetMetrics drops them once the order is gone.
var (
	orderLabels = []string{"kind", "cluster", "namespace", "name"}

	orderReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orderhub_order_ready",
		Help: "1 when the order's Ready condition is True, else 0; reason is that condition's reason."},
		append(orderLabels[:4:4], "reason"))
	credentialExpiry = orderGauge("orderhub_credential_expiration_timestamp_seconds",
		"When the delivered credential expires in Keystone, in Unix seconds; absent for one without expiry.")
	credentialNextRotation = orderGauge("orderhub_credential_next_rotation_timestamp_seconds",
		"When the schedule rotates the delivered credential next, in Unix seconds; absent with the schedule off.")
	credentialGracePeriod = orderGauge("orderhub_credential_grace_period_seconds",
		"The order's rotation grace period in seconds.")
	rotationFailing = orderGauge("orderhub_credential_rotation_failing",
		"1 while K-ORC reports a terminal error on a credential generation of the order (CredentialFailed), else 0.")
	rotations = orderCounter("orderhub_credential_rotations_total",
		"Switches of the delivered credential to a successor generation.")
	rotationFailures = orderCounter("orderhub_credential_rotation_failures_total",
		"Failed successor generations deleted to be replaced or superseded.")
	rotationDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "orderhub_credential_rotation_duration_seconds",
		Help:    "Time from the creation of a successor generation to the delivered Secret carrying it.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 16)}, []string{"kind"})
	consumersPending = orderGauge("orderhub_consumers_pending",
		"Opted-in workloads reading the order's delivered Secret that have not rolled out to its current generation.")
	revokedBeforeRollout = orderCounter("orderhub_credential_revoked_before_rollout_total",
		"Superseded credentials revoked at the end of their grace period while waited-for consumers were not on the current generation.")
)

// orderGauge and orderCounter are per-order series (orderLabels).
func orderGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, orderLabels)
}

func orderCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, orderLabels)
}

// childApplies serves orderhub_child_applies_total from apply.Children's
// counts, which korc.Apply and eso.Apply keep (docs/reference/metrics.md).
type childApplies struct{ desc *prometheus.Desc }

var childAppliesDesc = prometheus.NewDesc("orderhub_child_applies_total",
	"Server-side applies of the hub's K-ORC and ESO children by kind: applied (sent) or skipped (the read object already showed the last apply).",
	[]string{"kind", "outcome"}, nil)

func (c childApplies) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c childApplies) Collect(ch chan<- prometheus.Metric) {
	for k, n := range apply.Children.Counts() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), k.Kind, string(k.Outcome))
	}
}

func init() {
	metrics.Registry.MustRegister(childApplies{childAppliesDesc}, orderReady, credentialExpiry, credentialNextRotation, credentialGracePeriod,
		rotationFailing, rotations, rotationFailures, rotationDuration, consumersPending, revokedBeforeRollout)
}

func (o Order) metricLabels() prometheus.Labels {
	return prometheus.Labels{"kind": o.Kind, "cluster": o.Cluster, "namespace": o.Namespace, "name": o.Name}
}

// readyReasons remembers the reason label of each order's
// orderhub_order_ready series, so that a pass replaces that one series by its
// full label set (a hash lookup) instead of matching a partial label set,
// which scans every series of the vector: one scan per pass is quadratic in
// the hub's orders (docs/performance.md, "The hub's CPU: one metrics scan per
// pass"). Guarded by its mutex; an entry lives as long as the order's series.
var readyReasons = struct {
	sync.Mutex
	m map[Order]string
}{m: map[Order]string{}}

// RecordReady sets orderhub_order_ready of o from conds' Ready condition
// (none: 0 with reason ""), dropping o's series of an earlier reason.
func RecordReady(o Order, conds []metav1.Condition) {
	v, reason := 0.0, ""
	if c := meta.FindStatusCondition(conds, c5c3v1alpha1.ConditionReady); c != nil {
		reason = c.Reason
		if c.Status == metav1.ConditionTrue {
			v = 1
		}
	}
	readyReasons.Lock()
	defer readyReasons.Unlock()
	if old, ok := readyReasons.m[o]; ok && old != reason {
		orderReady.DeleteLabelValues(o.Kind, o.Cluster, o.Namespace, o.Name, old)
	}
	readyReasons.m[o] = reason
	orderReady.WithLabelValues(o.Kind, o.Cluster, o.Namespace, o.Name, reason).Set(v)
}

// forgetReady drops o's orderhub_order_ready series and its remembered reason.
func forgetReady(o Order) {
	readyReasons.Lock()
	defer readyReasons.Unlock()
	if old, ok := readyReasons.m[o]; ok {
		orderReady.DeleteLabelValues(o.Kind, o.Cluster, o.Namespace, o.Name, old)
		delete(readyReasons.m, o)
	}
}

// CredentialMetrics is the delivered credential's schedule as one pass saw it.
type CredentialMetrics struct {
	// ExpiresAt and NextRotation are nil when absent (series removed).
	ExpiresAt, NextRotation *time.Time
	GracePeriod             time.Duration
	Failing                 bool
}

// RecordCredential sets o's credential gauges from m.
func RecordCredential(o Order, m CredentialMetrics) {
	l := o.metricLabels()
	setTimestamp(credentialExpiry, l, m.ExpiresAt)
	setTimestamp(credentialNextRotation, l, m.NextRotation)
	credentialGracePeriod.With(l).Set(m.GracePeriod.Seconds())
	failing := 0.0
	if m.Failing {
		failing = 1
	}
	rotationFailing.With(l).Set(failing)
}

func setTimestamp(g *prometheus.GaugeVec, l prometheus.Labels, t *time.Time) {
	if t == nil {
		g.Delete(l)
		return
	}
	g.With(l).Set(float64(t.Unix()))
}

// RecordRotation counts a switch of o's delivered credential.
func RecordRotation(o Order) { rotations.With(o.metricLabels()).Inc() }

// RecordRotationFailure counts a failed successor of o deleted.
func RecordRotationFailure(o Order) { rotationFailures.With(o.metricLabels()).Inc() }

// ObserveRotationDuration records d, from a successor's creation to its
// delivery, for kind.
func ObserveRotationDuration(kind string, d time.Duration) {
	rotationDuration.WithLabelValues(kind).Observe(d.Seconds())
}

// RecordConsumersPending sets orderhub_consumers_pending of o to n
// (docs/reference/consumers.md, "Status").
func RecordConsumersPending(o Order, n int) { consumersPending.With(o.metricLabels()).Set(float64(n)) }

// RecordRevokedBeforeRollout counts a superseded credential of o revoked at
// its grace period's end with consumers still waited for (the Warning
// SupersededRevokedBeforeRollout, docs/reference/consumers.md).
func RecordRevokedBeforeRollout(o Order) { revokedBeforeRollout.With(o.metricLabels()).Inc() }

// ForgetMetrics drops every per-order series of o. The vectors other than
// orderhub_order_ready carry exactly orderLabels, so each Delete is a lookup.
func ForgetMetrics(o Order) {
	forgetReady(o)
	l := o.metricLabels()
	for _, v := range []*prometheus.MetricVec{credentialExpiry.MetricVec, credentialNextRotation.MetricVec,
		credentialGracePeriod.MetricVec, rotationFailing.MetricVec, rotations.MetricVec, rotationFailures.MetricVec,
		consumersPending.MetricVec, revokedBeforeRollout.MetricVec} {
		v.Delete(l)
	}
}
