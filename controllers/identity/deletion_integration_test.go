//go:build integration

package identity

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// deletionCase is one kind in TestDeletionPolicyInForceAtDeletionDecides.
type deletionCase struct {
	kind string
	// build returns a resource with deletionPolicy delete.
	build func(name string) kobj
	// id is the Keystone ID the resource recorded.
	id func(o kobj) string
	// fault is the request of the Keystone delete that is made to fail.
	fault func(id string) string
	// exists reports whether the Keystone object is still there.
	exists func(t *testing.T, id string) bool
	// retain switches the resource's policy to retain.
	retain func(o kobj)
}

// A resource is deleted with deletionPolicy delete, but the Keystone delete
// fails (injected 503), and while it is terminating its policy is switched to
// retain. Once Keystone answers again the resource goes away and the Keystone
// object stays: the live policy decides, not the one the deletion started with.
func TestDeletionPolicyInForceAtDeletionDecides(t *testing.T) {
	cases := []deletionCase{
		{
			kind: "Domain",
			build: func(name string) kobj {
				return &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
					Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete}, Name: name}}
			},
			id: func(o kobj) string { return o.(*kv1.Domain).Status.DomainID },
			// Deleting a domain starts with disabling it.
			fault: func(id string) string { return "PATCH /v3/domains/" + id },
			exists: func(t *testing.T, id string) bool {
				d, err := domains.Get(context.Background(), admin, id).Extract()
				return err == nil && d.Enabled
			},
			retain: func(o kobj) { o.(*kv1.Domain).Spec.DeletionPolicy = kv1.DeletionPolicyRetain },
		},
		{
			kind: "Role",
			build: func(name string) kobj {
				return &kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
					Spec: kv1.RoleSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete}, Name: name}}
			},
			id:    func(o kobj) string { return o.(*kv1.Role).Status.RoleID },
			fault: func(id string) string { return "DELETE /v3/roles/" + id },
			exists: func(t *testing.T, id string) bool {
				_, err := roles.Get(context.Background(), admin, id).Extract()
				return err == nil
			},
			retain: func(o kobj) { o.(*kv1.Role).Spec.DeletionPolicy = kv1.DeletionPolicyRetain },
		},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			ctx := ctxT(t)
			o := tc.build(uniq(t, "switched-"+strings.ToLower(tc.kind)))
			mustCreate(t, o)
			waitReady(t, o)
			id := tc.id(o)
			if id == "" || !tc.exists(t, id) {
				t.Fatalf("%s %q not in Keystone", tc.kind, id)
			}
			proxy.setPathFault(tc.fault(id), 503)
			t.Cleanup(func() { proxy.setPathFault(tc.fault(id), 0) })
			if err := k8s.Delete(ctx, o); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the Keystone delete failing", func() (bool, string) {
				c := readyOf(t, o)
				return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "delete from Keystone"), fmt.Sprint(c)
			})
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
				t.Fatal(err)
			}
			tc.retain(o)
			if err := k8s.Update(ctx, o); err != nil {
				t.Fatalf("switch the terminating resource to retain: %v", err)
			}
			proxy.setPathFault(tc.fault(id), 0)
			eventually(t, "the resource gone", func() (bool, string) {
				err := k8s.Get(ctx, client.ObjectKeyFromObject(o), o)
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
			if !tc.exists(t, id) {
				t.Errorf("%s %s was deleted from Keystone although the policy in force at deletion is retain", tc.kind, id)
			}
		})
	}
}
