package declaration

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestOldest(t *testing.T) {
	t.Parallel()
	t0 := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Second))
	older := Of{Namespace: "b", Name: "z", UID: "9", Created: t0}
	for _, tc := range []struct {
		name string
		all  []Of
		want Of
	}{
		{"alone", []Of{older}, older},
		{"the earlier creationTimestamp wins over namespace and name", []Of{{Namespace: "a", Name: "a", UID: "1", Created: t1}, older}, older},
		{"same second: the namespace", []Of{{Namespace: "c", Name: "a", Created: t0}, older}, older},
		{"same second and namespace: the name", []Of{{Namespace: "b", Name: "zz", Created: t0}, older, {Namespace: "b", Name: "zzz", Created: t0}}, older},
		{"same name: the UID", []Of{{Namespace: "b", Name: "z", UID: "a", Created: t0}, older}, older},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Oldest(tc.all); got != tc.want {
				t.Fatalf("Oldest = %+v, want %+v", got, tc.want)
			}
		})
	}
}
