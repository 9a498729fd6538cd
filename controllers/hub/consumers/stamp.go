package consumers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// maxNamePart is the longest name part of an annotation key
// (k8s.io/apimachinery/pkg/util/validation, qualified names).
const maxNamePart = 63

// StampKey is the pod-template annotation key for Secret secretName: one key
// per Secret, so a workload consuming several carries one stamp each.
// A name longer than 63 characters is cut and ends in 16 hex digits of its
// SHA-256, keeping keys distinct.
func StampKey(secretName string) string {
	name := secretName
	if len(name) > maxNamePart {
		sum := sha256.Sum256([]byte(secretName))
		name = name[:maxNamePart-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return c5c3v1alpha1.AnnotationCredentialPrefix + name
}

// stampShape is StampValue's shape: an order kind, an order name (an RFC 1123
// subdomain) and a generation.
var stampShape = regexp.MustCompile(`^[A-Za-z]{1,64}/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?=[0-9]{1,19}$`)

// ForeignStamp is what status.consumers shows for a stamp annotation that
// StampValue did not write (anyone who may edit the workload can write one).
const ForeignStamp = "(foreign)"

// Shown is stamp as status.consumers shows it: itself when it has
// StampValue's shape or is empty, else ForeignStamp, so a workload's
// annotation cannot grow the order's status.
func Shown(stamp string) string {
	if stamp == "" || stampShape.MatchString(stamp) {
		return stamp
	}
	return ForeignStamp
}

// StampValue is "<kind>/<name>=<generation>": the order that delivers the
// Secret and the credential generation it carries.
func StampValue(kind, order string, generation int64) string {
	return fmt.Sprintf("%s/%s=%d", kind, order, generation)
}

// OptedIn reads the opt-in: the workload's annotation when set, else the
// namespace's; only "true" opts in.
func OptedIn(workload, namespace map[string]string) bool {
	if v, ok := workload[c5c3v1alpha1.AnnotationRolloutOnCredentialChange]; ok {
		return v == "true"
	}
	return namespace[c5c3v1alpha1.AnnotationRolloutOnCredentialChange] == "true"
}
