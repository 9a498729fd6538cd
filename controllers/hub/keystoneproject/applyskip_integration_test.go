//go:build integration

package keystoneproject

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// touchAnnotation is set on an order to wake a pass that changes nothing.
const touchAnnotation = "test.c5c3.io/touch"

// auditedWrite is the part of an audit.k8s.io/v1 Event the test reads.
type auditedWrite struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	Stage      string `json:"stage"`
	ObjectRef  *struct {
		Resource, Namespace, Name string
	} `json:"objectRef"`
}

// writesTo returns the field managers of the writes (patch, update, create)
// to the K-ORC Project ns/name the apiserver's audit log records from byte
// offset from on, in log order, and the offset after its last whole line.
func writesTo(t *testing.T, from int64, ns, name string) ([]string, int64) {
	t.Helper()
	b, err := os.ReadFile(stack.Kube.AuditLog)
	if err != nil {
		t.Fatalf("the apiserver's audit log: %v", err)
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1] // a line being written is read next time
	var managers []string
	sc := bufio.NewScanner(bytes.NewReader(b[from:]))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditedWrite
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		if e.Stage != "ResponseComplete" || e.ObjectRef == nil || e.ObjectRef.Resource != "projects" ||
			e.ObjectRef.Namespace != ns || e.ObjectRef.Name != name || (e.Verb != "patch" && e.Verb != "update" && e.Verb != "create") {
			continue
		}
		fm := "(none)"
		if _, q, ok := strings.Cut(e.RequestURI, "?"); ok {
			for _, kv := range strings.Split(q, "&") {
				if v, ok := strings.CutPrefix(kv, "fieldManager="); ok {
					fm = v
				}
			}
		}
		managers = append(managers, fm)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return managers, int64(len(b))
}

// TestResyncSendsNoApplyForAppliedChildren: once an order is Ready, a pass
// that finds its managed K-ORC Project as the hub applied it last sends no
// apply (the apiserver's audit log records no write of the hub to it), and
// a spec edit of that Project by another field manager is still reverted
// by the hub (docs/performance.md, "Hub: 500 application credentials (2000 orders)", "Next cuts").
func TestResyncSendsNoApplyForAppliedChildren(t *testing.T) {
	ctx := context.Background()
	kp := order(tenantNS, "skip-unchanged", "", "as ordered")
	create(t, kp)
	t.Cleanup(func() {
		_ = kube.Delete(ctx, kp)
		waitGone(t, kp)
	})
	waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	key := types.NamespacedName{Namespace: planeNS,
		Name: korc.OrderChildName(korc.InfixProject, "", kp.Namespace, kp.Name, korc.DiscProject)}
	touches := 0
	touch := func() {
		touches++
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, touchAnnotation, strconv.Itoa(touches))
		if err := kube.Patch(ctx, kp, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	skipped := func() float64 {
		return testenv.CounterSum(t, "orderhub_child_applies_total", map[string]string{"kind": "Project", "outcome": "skipped"})
	}

	// A pass that skips the Project: woken by a touch of the order.
	base := skipped()
	testenv.Eventually(t, waitTimeout, "a pass skipping the Project's apply", func() error {
		touch()
		if n := skipped(); n <= base {
			return fmt.Errorf("orderhub_child_applies_total{kind=Project,outcome=skipped} = %v, not above %v", n, base)
		}
		return nil
	})
	_, from := writesTo(t, 0, key.Namespace, key.Name)

	// More passes: no write of the hub reaches the Project.
	for range 3 {
		before := skipped()
		touch()
		testenv.Eventually(t, waitTimeout, "the touched order's pass", func() error {
			if n := skipped(); n <= before {
				return fmt.Errorf("no skip counted since %v", before)
			}
			return nil
		})
	}

	// Drift: another field manager edits the Project's spec; the hub puts it back.
	edit := []byte(`{"spec":{"resource":{"description":"drifted"}}}`)
	if err := kube.Patch(ctx, &orcv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, client.RawPatch(types.MergePatchType, edit),
		client.FieldOwner("drift-test")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, "the hub reverting the Project's description", func() error {
		var p orcv1alpha1.Project
		if err := kube.Get(ctx, key, &p); err != nil {
			return err
		}
		if d := p.Spec.Resource; d == nil || d.Description == nil || *d.Description != "as ordered" {
			return fmt.Errorf("spec.resource %+v", d)
		}
		return nil
	})

	managers, _ := writesTo(t, from, key.Namespace, key.Name)
	edited := -1
	for i, m := range managers {
		if m == "drift-test" {
			edited = i
			break
		}
	}
	if edited < 0 {
		t.Fatalf("the audit log has no write of drift-test to the Project: %v", managers)
	}
	for _, m := range managers[:edited] {
		if m == ControllerName {
			t.Fatalf("the hub wrote the unchanged Project during %d passes woken by touches: writes in order %v", touches, managers)
		}
	}
	repaired := false
	for _, m := range managers[edited+1:] {
		repaired = repaired || m == ControllerName
	}
	if !repaired {
		t.Fatalf("no write of the hub to the Project after the drift: %v", managers)
	}
	t.Logf("writes to the Project after the order was Ready, in order: %v (%d touches)", managers, touches)
}
