package credentialrotation

import (
	"testing"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	rot := func(mut func(*c5c3v1alpha1.CredentialRotation)) *c5c3v1alpha1.CredentialRotation {
		cr := &c5c3v1alpha1.CredentialRotation{Spec: c5c3v1alpha1.CredentialRotationSpec{
			Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword, KeystoneService: "workflow"}}
		cr.Name, cr.Namespace, cr.UID, cr.Generation = "r", "openstack", "uid-1", 2
		if mut != nil {
			mut(cr)
		}
		return cr
	}
	delivered := &c5c3v1alpha1.KeystoneService{Spec: c5c3v1alpha1.KeystoneServiceSpec{Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{}},
		Status: c5c3v1alpha1.KeystoneServiceStatus{Account: &c5c3v1alpha1.KeystoneServiceAccountStatus{PasswordGeneration: 1}}}
	fresh := &c5c3v1alpha1.KeystoneService{Spec: c5c3v1alpha1.KeystoneServiceSpec{Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{}}}
	catalogOnly := &c5c3v1alpha1.KeystoneService{}
	tests := []struct {
		name   string
		cr     *c5c3v1alpha1.CredentialRotation
		ks     *c5c3v1alpha1.KeystoneService
		action Action
		reason string
	}{
		{"nudge", rot(nil), delivered, Nudge, c5c3v1alpha1.ReasonRotationTriggered},
		{"latched", rot(func(c *c5c3v1alpha1.CredentialRotation) { c.Status.LastTriggeredGeneration = 2 }), delivered, Done, ""},
		{"spec changed fires again", rot(func(c *c5c3v1alpha1.CredentialRotation) { c.Status.LastTriggeredGeneration = 1 }), delivered, Nudge, c5c3v1alpha1.ReasonRotationTriggered},
		{"missing service", rot(nil), nil, Wait, c5c3v1alpha1.ReasonKeystoneServiceNotFound},
		{"no account block", rot(nil), catalogOnly, Wait, c5c3v1alpha1.ReasonUnknownServiceAccount},
		{"first password not delivered", rot(nil), fresh, Wait, c5c3v1alpha1.ReasonWaitingForServiceAccount},
		{"admin target", rot(func(c *c5c3v1alpha1.CredentialRotation) {
			c.Spec.Target, c.Spec.KeystoneService = c5c3v1alpha1.CredentialRotationTargetAdminApplicationCredential, ""
		}), nil, Refuse, c5c3v1alpha1.ReasonUnsupportedTarget},
		{"plane service account", rot(func(c *c5c3v1alpha1.CredentialRotation) { c.Spec.KeystoneService, c.Spec.ServiceAccount = "", "nova" }),
			nil, Refuse, c5c3v1alpha1.ReasonUnsupportedTarget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Decide(tc.cr, tc.ks)
			if d.Action != tc.action || d.Ready.Reason != tc.reason {
				t.Errorf("Decide = %s/%s (%s), want %s/%s", d.Action, d.Ready.Reason, d.Ready.Message, tc.action, tc.reason)
			}
		})
	}
	if v := RequestValue(rot(nil)); v != "uid-1/2" {
		t.Errorf("RequestValue = %q", v)
	}
}
