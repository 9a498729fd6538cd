package controlplane

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func cpAt(ns, name string, created time.Time) c5c3v1alpha1.ControlPlane {
	return c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		CreationTimestamp: metav1.NewTime(created)}}
}

func TestDuplicate(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	deleting := cpAt("ns", "a", t0)
	deleting.DeletionTimestamp = &metav1.Time{Time: t1}
	tests := []struct {
		name   string
		cp     c5c3v1alpha1.ControlPlane
		others []c5c3v1alpha1.ControlPlane
		want   string // name of the older plane, "" for none
	}{
		{"alone", cpAt("ns", "a", t0), nil, ""},
		{"the list holds only itself", cpAt("ns", "a", t0), []c5c3v1alpha1.ControlPlane{cpAt("ns", "a", t0)}, ""},
		{"the older plane survives", cpAt("ns", "a", t0),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "a", t0), cpAt("ns", "b", t1)}, ""},
		{"the newer plane is parked", cpAt("ns", "b", t1),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "a", t0), cpAt("ns", "b", t1)}, "a"},
		{"an earlier timestamp beats a smaller name", cpAt("ns", "a", t1),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "z", t0), cpAt("ns", "a", t1)}, "z"},
		{"a tie is broken by name: the larger name is parked", cpAt("ns", "b", t0),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "b", t0), cpAt("ns", "a", t0)}, "a"},
		{"a tie is broken by name: the smaller name survives", cpAt("ns", "a", t0),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "b", t0), cpAt("ns", "a", t0)}, ""},
		{"the oldest of several is named", cpAt("ns", "c", t1.Add(time.Second)),
			[]c5c3v1alpha1.ControlPlane{cpAt("ns", "b", t1), cpAt("ns", "a", t0), cpAt("ns", "c", t1.Add(time.Second))}, "a"},
		{"planes of other namespaces are ignored", cpAt("ns", "b", t1),
			[]c5c3v1alpha1.ControlPlane{cpAt("other", "a", t0)}, ""},
		{"an older plane being deleted still counts", cpAt("ns", "b", t1),
			[]c5c3v1alpha1.ControlPlane{deleting}, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Duplicate(&tc.cp, tc.others)
			switch {
			case tc.want == "" && got != nil:
				t.Errorf("parked behind %s/%s, want not parked", got.Namespace, got.Name)
			case tc.want != "" && got == nil:
				t.Errorf("not parked, want parked behind %s", tc.want)
			case tc.want != "" && got.Name != tc.want:
				t.Errorf("parked behind %s, want %s", got.Name, tc.want)
			}
		})
	}
}

// TestDuplicateAgrees checks that exactly one plane of a namespace survives,
// whatever the list order.
func TestDuplicateAgrees(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	planes := []c5c3v1alpha1.ControlPlane{cpAt("ns", "c", t0), cpAt("ns", "b", t0.Add(time.Second)),
		cpAt("ns", "a", t0), cpAt("ns", "d", t0.Add(-time.Second))}
	var survivors []string
	for i := range planes {
		if Duplicate(&planes[i], planes) == nil {
			survivors = append(survivors, planes[i].Name)
		}
	}
	if len(survivors) != 1 || survivors[0] != "d" {
		t.Errorf("survivors %v, want [d]", survivors)
	}
}

func TestDuplicateConditions(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	older, cp := cpAt("ns", "first", t0), cpAt("ns", "second", t0.Add(time.Second))
	got := DuplicateConditions(&cp, &older, 3)
	if len(got) != 2 || got[0].Type != c5c3v1alpha1.ConditionAdminCredentialReady || got[1].Type != c5c3v1alpha1.ConditionReady {
		t.Fatalf("conditions %+v, want AdminCredentialReady then Ready", got)
	}
	for _, c := range got {
		if c.Status != metav1.ConditionFalse || c.Reason != c5c3v1alpha1.ReasonDuplicateControlPlane || c.ObservedGeneration != 3 {
			t.Errorf("%s: %+v", c.Type, c)
		}
		if !strings.Contains(c.Message, "ns/first") || !strings.Contains(c.Message, "delete ControlPlane ns/second") {
			t.Errorf("%s: message %q names neither the older plane nor the remedy", c.Type, c.Message)
		}
	}
}
