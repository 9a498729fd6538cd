package orders

import (
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
