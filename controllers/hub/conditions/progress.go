package conditions

import c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"

// progress are the False reasons that name a wait which ends by itself
// (a child or a referenced order not there yet, a deferral), as opposed to
// a failure a user has to act on (docs/hub.md, "Condition events").
var progress = map[string]bool{
	c5c3v1alpha1.ReasonControlPlaneNotFound:      true,
	c5c3v1alpha1.ReasonWaitingForAdminCredential: true,
	c5c3v1alpha1.ReasonProbingForCollision:       true,
	c5c3v1alpha1.ReasonWaitingForCatalog:         true,
	c5c3v1alpha1.ReasonWaitingForServiceAccounts: true,
	c5c3v1alpha1.ReasonWaitingForUser:            true,
	c5c3v1alpha1.ReasonWaitingForProject:         true,
	c5c3v1alpha1.ReasonNoRoleOnProject:           true,
	c5c3v1alpha1.ReasonWaitingForCABundle:        true,
	c5c3v1alpha1.ReasonWaitingForCredential:      true,
	c5c3v1alpha1.ReasonBackupNotSynced:           true,
	c5c3v1alpha1.ReasonWaitingForPassword:        true,
	c5c3v1alpha1.ReasonWaitingForKeystoneUser:    true,
	c5c3v1alpha1.ReasonRotationBudgetExhausted:   true,
	c5c3v1alpha1.ReasonWaitingForKeystoneProject: true,
	c5c3v1alpha1.ReasonWaitingForAssignment:      true,
	c5c3v1alpha1.ReasonWaitingForCloudsYaml:      true,
	c5c3v1alpha1.ReasonWaitingForServiceAccount:  true,
	c5c3v1alpha1.ReasonNotAllReady:               true,
}

// Progress reports whether a False condition's reason is progress (a wait
// that ends by itself) rather than a failure. Pure.
func Progress(reason string) bool { return progress[reason] }
