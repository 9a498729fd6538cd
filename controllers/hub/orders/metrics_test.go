package orders

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestRecordReady_OneSeriesPerOrder(t *testing.T) {
	o := Order{Kind: KindKeystoneUser, Namespace: "ns", Name: "metrics-ready"}
	defer ForgetMetrics(o)
	RecordReady(o, []metav1.Condition{{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonNotAllReady}})
	RecordReady(o, []metav1.Condition{{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonAllReady}})
	if v := gauge(orderReady.WithLabelValues(o.Kind, "", "ns", "metrics-ready", c5c3v1alpha1.ReasonAllReady)); v != 1 {
		t.Errorf("Ready True reads %v, want 1", v)
	}
	orderReady.DeleteLabelValues(o.Kind, "", "ns", "metrics-ready", c5c3v1alpha1.ReasonAllReady)
	if n := orderReady.DeletePartialMatch(o.metricLabels()); n != 0 {
		t.Errorf("%d older series of the order remain after a reason change, want 0", n)
	}
}

func TestForgetMetrics_DropsReadySeries(t *testing.T) {
	o := Order{Kind: KindKeystoneProject, Cluster: "c1", Namespace: "ns", Name: "metrics-forget"}
	RecordReady(o, []metav1.Condition{{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonNotAllReady}})
	ForgetMetrics(o)
	if n := orderReady.DeletePartialMatch(o.metricLabels()); n != 0 {
		t.Errorf("%d orderhub_order_ready series of a forgotten order remain, want 0", n)
	}
	readyReasons.Lock()
	_, remembered := readyReasons.m[o]
	readyReasons.Unlock()
	if remembered {
		t.Error("the forgotten order's reason is still remembered (an entry per order ever seen: a leak)")
	}
	// Recorded again (a re-created order of the same name): one series.
	RecordReady(o, nil)
	defer ForgetMetrics(o)
	if n := orderReady.DeletePartialMatch(o.metricLabels()); n != 1 {
		t.Errorf("%d series after recording a re-created order, want 1", n)
	}
}

// BenchmarkRecordReady is one pass's RecordReady while the hub holds n other
// orders' series: its cost must not grow with n (docs/performance.md, "The
// hub's CPU: one metrics scan per pass").
func BenchmarkRecordReady(b *testing.B) {
	for _, n := range []int{200, 2000, 8000} {
		b.Run(fmt.Sprintf("series=%d", n), func(b *testing.B) {
			others := make([]Order, n)
			for i := range others {
				others[i] = Order{Kind: KindKeystoneUser, Namespace: "bench", Name: fmt.Sprintf("u%d", i)}
				RecordReady(others[i], nil)
			}
			defer func() {
				for _, o := range others {
					ForgetMetrics(o)
				}
			}()
			o := Order{Kind: KindKeystoneApplicationCredential, Namespace: "bench", Name: "measured"}
			defer ForgetMetrics(o)
			conds := [][]metav1.Condition{
				{{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonNotAllReady}},
				{{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonAllReady}},
			}
			for i := 0; b.Loop(); i++ {
				RecordReady(o, conds[i%2])
			}
		})
	}
}

func TestRecordCredential_AndForget(t *testing.T) {
	o := Order{Kind: KindKeystoneApplicationCredential, Cluster: "c1", Namespace: "ns", Name: "metrics-cred"}
	exp := time.Unix(1_900_000_000, 0)
	RecordCredential(o, CredentialMetrics{ExpiresAt: &exp, GracePeriod: 90 * time.Second, Failing: true})
	l := o.metricLabels()
	if v := gauge(credentialExpiry.With(l)); v != 1_900_000_000 {
		t.Errorf("expiry %v, want 1900000000", v)
	}
	if v := gauge(credentialGracePeriod.With(l)); v != 90 {
		t.Errorf("grace %v, want 90", v)
	}
	if v := gauge(rotationFailing.With(l)); v != 1 {
		t.Errorf("failing %v, want 1", v)
	}
	if credentialNextRotation.Delete(l) {
		t.Error("a nil next rotation left a series")
	}
	RecordRotation(o)
	ForgetMetrics(o)
	if credentialExpiry.Delete(l) || rotations.Delete(l) || rotationFailing.Delete(l) {
		t.Error("ForgetMetrics left a series of the order")
	}
}

func gauge(g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		panic(err)
	}
	return m.GetGauge().GetValue()
}
