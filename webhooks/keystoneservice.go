// Package webhooks holds the hub's admission webhooks: the KeystoneService
// defaulter and validator, and the ControlPlane one-per-namespace validator.
// They hold only what the CRD schema cannot express
// (docs/reference/keystoneservice.md, "Defaulting and Validation Summary");
// every other rule is a CRD rule that binds even with the webhook down. The
// order kinds have no webhook: target clusters run none.
package webhooks

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// Messages of the rules only the webhook holds. Format verbs are filled with
// the values named in each comment.
const (
	// MsgServiceNameEffective: old effective name, new effective name.
	MsgServiceNameEffective = "catalog.serviceName is immutable by effective value (spec.catalog.serviceName, else metadata.name): %q would become %q; delete and re-create the KeystoneService"
	// MsgUserNameEffective: old effective name, new effective name.
	MsgUserNameEffective = "account.userName is immutable by effective value (spec.account.userName, else metadata.name): %q would become %q; delete and re-create the KeystoneService"
	// MsgControlPlaneNamespaceResolved: the rule has no values, because the
	// resolved namespace is the CR's own, which differs per test namespace.
	MsgControlPlaneNamespaceResolved = "controlPlaneRef.namespace is immutable: the namespace the ControlPlane resolves in (spec.controlPlaneRef.namespace, else the KeystoneService's own) would change; delete and re-create the KeystoneService"
	// MsgNameTooLong: bound, longest discriminator, longest child length.
	MsgNameTooLong = "metadata.name must be at most %d bytes: the longest child name this KeystoneService projects (<name>-<8hex>-registration-%s) would be %d bytes, over the 253-byte object name limit"
	// MsgNameNotLabelValue: the name's length in bytes (a generated name
	// counts generateName plus the 5 characters the API server appends).
	MsgNameNotLabelValue = "metadata.name must be at most 63 bytes: every child of a KeystoneService carries its name as the value of the label c5c3.io/owner-name, and a label value is at most 63 bytes; this name is %d bytes"
	// MsgNameDeliveryTooLong: bound, the name's length, the field manager's
	// length.
	MsgNameDeliveryTooLong = "metadata.name must be at most %d bytes with an account block: ESO writes the consumer Secret with the field manager externalsecrets.external-secrets.io/<name>-<8hex>-registration-delivery, which for this %d-byte name would be %d bytes, over the API server's 128-byte fieldManager limit"
)

// Admission warnings of the adopt switches (docs/reference/keystoneservice.md,
// "Collision and adoption": adoption means ownership).
const (
	// MsgAccountAdoptWarning: the effective user name.
	MsgAccountAdoptWarning = "account.adopt: true takes over an existing unmanaged Keystone user %q: its password is replaced by a generated one, and deleting this KeystoneService deletes the user"
	// MsgCatalogAdoptWarning: the catalog's service type.
	MsgCatalogAdoptWarning = "catalog.adopt: true takes over an existing unmanaged catalog service of type %q and its endpoints: deleting this KeystoneService deletes them from Keystone"
)

// adoptWarnings warns about each adopt switch that ks turns on (old nil on
// create; on update only a switch off in old warns).
func adoptWarnings(old, ks *c5c3v1alpha1.KeystoneService) admission.Warnings {
	var w admission.Warnings
	if a := ks.Spec.Account; a != nil && a.Adopt && (old == nil || old.Spec.Account == nil || !old.Spec.Account.Adopt) {
		w = append(w, fmt.Sprintf(MsgAccountAdoptWarning, ks.EffectiveUserName()))
	}
	if c := ks.Spec.Catalog; c != nil && c.Adopt && (old == nil || old.Spec.Catalog == nil || !old.Spec.Catalog.Adopt) {
		w = append(w, fmt.Sprintf(MsgCatalogAdoptWarning, c.ServiceType))
	}
	return w
}

// KeystoneServiceDefaulter is the KeystoneService defaulting webhook. It sets
// exactly one field: spec.account.userName from metadata.name when empty
// (docs/reference/keystoneservice.md, "Defaulting and Validation Summary").
// rotation.mode carries a schema default; domainName and catalog.serviceName
// resolve against values admission cannot see and stay reconciler-side.
type KeystoneServiceDefaulter struct{}

var _ admission.Defaulter[*c5c3v1alpha1.KeystoneService] = KeystoneServiceDefaulter{}

// Default materializes spec.account.userName. A name still to be generated
// (metadata.generateName) is left for the reconciler's fallback.
func (KeystoneServiceDefaulter) Default(_ context.Context, ks *c5c3v1alpha1.KeystoneService) error {
	if ks.Spec.Account != nil && ks.Spec.Account.UserName == "" && ks.Name != "" {
		ks.Spec.Account.UserName = c5c3v1alpha1.OpenStackName(ks.Name)
	}
	return nil
}

// KeystoneServiceValidator is the KeystoneService validating webhook. It
// holds no client and reads nothing.
type KeystoneServiceValidator struct{}

var _ admission.Validator[*c5c3v1alpha1.KeystoneService] = KeystoneServiceValidator{}

// ValidateCreate checks the metadata.name bound and mirrors the value rules.
func (KeystoneServiceValidator) ValidateCreate(_ context.Context, ks *c5c3v1alpha1.KeystoneService) (admission.Warnings, error) {
	return adoptWarnings(nil, ks), joinErrors(append(validateValues(ks), validateNameBound(ks)...))
}

// ValidateUpdate adds the three rules CEL cannot express: effective-value
// immutability of serviceName and userName, and the resolved
// controlPlaneRef.namespace freeze. An update that leaves the spec alone
// (finalizer removal, labels) is always admitted, so a CR admitted under an
// older rule set can still be torn down.
func (KeystoneServiceValidator) ValidateUpdate(_ context.Context, old, ks *c5c3v1alpha1.KeystoneService) (admission.Warnings, error) {
	if equality.Semantic.DeepEqual(old.Spec, ks.Spec) {
		return nil, nil
	}
	errs := validateTransition(old, ks)
	errs = append(errs, validateValues(ks)...)
	errs = append(errs, validateNameBound(ks)...)
	return adoptWarnings(old, ks), joinErrors(errs)
}

// ValidateDelete admits every deletion.
func (KeystoneServiceValidator) ValidateDelete(context.Context, *c5c3v1alpha1.KeystoneService) (admission.Warnings, error) {
	return nil, nil
}

// validateTransition holds the rules that compare effective values.
func validateTransition(old, ks *c5c3v1alpha1.KeystoneService) []string {
	var errs []string
	// Compared only while the block exists on both sides: removing a block
	// is its teardown, and a re-added block is a new registration.
	if old.Spec.Catalog != nil && ks.Spec.Catalog != nil {
		if o, n := old.EffectiveServiceName(), ks.EffectiveServiceName(); o != n {
			errs = append(errs, fmt.Sprintf(MsgServiceNameEffective, o, n))
		}
	}
	if old.Spec.Account != nil && ks.Spec.Account != nil {
		// Materializing the metadata.name fallback onto a CR stored before
		// the defaulter existed keeps the effective value, so it is admitted.
		if o, n := old.EffectiveUserName(), ks.EffectiveUserName(); o != n {
			errs = append(errs, fmt.Sprintf(MsgUserNameEffective, o, n))
		}
	}
	// Setting an explicit value naming the namespace the CR already resolved
	// to changes nothing and is admitted.
	if old.ControlPlaneNamespace() != ks.ControlPlaneNamespace() {
		errs = append(errs, MsgControlPlaneNamespaceResolved)
	}
	return errs
}

// NameBound is the longest metadata.name, in bytes, the webhook admits for
// ks (docs/reference/keystoneservice.md, "orderhub: limits"), the smallest of:
//   - c5c3v1alpha1.MaxOwnerNameLength (63), the label-value limit: every
//     child carries the name as LabelOwnerName;
//   - korc.MaxRegistrationNameLength(ks), the longest child name within 253
//     bytes (150 with a 64-character role, the widest discriminator, so it
//     never binds today);
//   - with an account block, MaxDeliveryNameLength (61): ESO's field manager
//     for the consumer Secret embeds the delivery ExternalSecret's name.
func NameBound(ks *c5c3v1alpha1.KeystoneService) int {
	b := min(c5c3v1alpha1.MaxOwnerNameLength, korc.MaxRegistrationNameLength(ks))
	if ks.Spec.Account != nil {
		b = min(b, MaxDeliveryNameLength)
	}
	return b
}

// validateNameBound keeps the name a valid label value and the longest child
// name within 253 bytes. With a generated name, the 5 random characters the
// API server appends count.
func validateNameBound(ks *c5c3v1alpha1.KeystoneService) []string {
	nameLen := len(ks.Name)
	if ks.Name == "" && ks.GenerateName != "" {
		nameLen = len(ks.GenerateName) + 5
	}
	disc := korc.LongestRegistrationDiscriminator(ks)
	if disc == "" {
		return nil // no block: the schema rejects it
	}
	var errs []string
	if nameLen > c5c3v1alpha1.MaxOwnerNameLength {
		errs = append(errs, fmt.Sprintf(MsgNameNotLabelValue, nameLen))
	}
	if ks.Spec.Account != nil && nameLen > MaxDeliveryNameLength {
		fm := len(esoFieldOwnerPrefix) + korc.ChildNameLength(nameLen, korc.InfixRegistration, korc.DiscDelivery)
		errs = append(errs, fmt.Sprintf(MsgNameDeliveryTooLong, MaxDeliveryNameLength, nameLen, fm))
	}
	if child := korc.ChildNameLength(nameLen, korc.InfixRegistration, disc); child > korc.MaxObjectNameLength {
		errs = append(errs, fmt.Sprintf(MsgNameTooLong, korc.MaxRegistrationNameLength(ks), disc, child))
	}
	return errs
}

// MaxEndpointURLLength is the longest endpoint URL, in characters, the
// schema admits: Keystone refuses a longer one (the url parameter type of
// keystone/common/validation/parameter_types.py, maxLength 225).
const MaxEndpointURLLength = 225

// esoFieldOwnerPrefix is how ESO v0.16.2 (hack/versions.sh) names the field
// manager of the Secret an ExternalSecret writes:
// "externalsecrets.external-secrets.io/<ExternalSecret name>"
// (fieldOwnerTemplate, github.com/external-secrets/external-secrets
// pkg/controllers/externalsecret). The API server refuses a field manager
// over 128 bytes (maxFieldManagerLength, k8s.io/apimachinery
// pkg/apis/meta/v1/validation FieldManagerMaxLength), so the account's
// delivery ExternalSecret (<name>-<8hex>-registration-delivery) bounds the
// name too.
const (
	esoFieldOwnerPrefix   = "externalsecrets.external-secrets.io/"
	maxFieldManagerLength = 128
)

// MaxDeliveryNameLength is the longest metadata.name of a KeystoneService
// with an account block whose delivery ExternalSecret ESO can write the
// consumer Secret for: 128 - 36 - 31 = 61 bytes.
var MaxDeliveryNameLength = maxFieldManagerLength - len(esoFieldOwnerPrefix) -
	korc.ChildNameLength(0, korc.InfixRegistration, korc.DiscDelivery)

var (
	dns1123Label  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	keystoneName  = regexp.MustCompile(c5c3v1alpha1.NamePattern)
	endpointURLRe = regexp.MustCompile(`^https?://[^\s/]+`)
)

// validateValues is the defense-in-depth mirror of the schema's value rules,
// for callers that bypass CRD schema admission. Messages name the field and
// the rule; the CEL ones reuse the schema's message verbatim.
func validateValues(ks *c5c3v1alpha1.KeystoneService) []string {
	var errs []string
	s := ks.Spec
	if s.Catalog == nil && s.Account == nil {
		errs = append(errs, c5c3v1alpha1.MsgKeystoneServiceNoBlock)
	}
	if s.ControlPlaneRef.Name == "" {
		errs = append(errs, "spec.controlPlaneRef.name is required")
	}
	if ns := s.ControlPlaneRef.Namespace; ns != "" && (len(ns) > 63 || !dns1123Label.MatchString(ns)) {
		errs = append(errs, "spec.controlPlaneRef.namespace must be an RFC-1123 label of at most 63 characters")
	}
	if s.Catalog != nil {
		errs = append(errs, validateCatalog(s.Catalog)...)
	}
	if s.Account != nil {
		errs = append(errs, validateAccount(s.Account)...)
	}
	return errs
}

// validateCatalog checks spec.catalog: service type and name, endpoint
// interfaces (each once) and URLs.
func validateCatalog(c *c5c3v1alpha1.KeystoneServiceCatalogSpec) []string {
	var errs []string
	if len(c.ServiceType) > 63 || !dns1123Label.MatchString(c.ServiceType) {
		errs = append(errs, "spec.catalog.serviceType must be a lowercase DNS-1123 label of at most 63 characters")
	}
	if c.ServiceType == "identity" {
		errs = append(errs, c5c3v1alpha1.MsgServiceTypeIdentity)
	}
	if c.ServiceName != "" {
		errs = append(errs, checkName("spec.catalog.serviceName", string(c.ServiceName), 255)...)
	}
	seen := map[c5c3v1alpha1.EndpointInterface]bool{}
	for i, ep := range c.Endpoints {
		switch ep.Interface {
		case c5c3v1alpha1.EndpointInterfacePublic, c5c3v1alpha1.EndpointInterfaceInternal, c5c3v1alpha1.EndpointInterfaceAdmin:
		default:
			errs = append(errs, fmt.Sprintf("spec.catalog.endpoints[%d].interface must be public, internal or admin", i))
		}
		if seen[ep.Interface] {
			errs = append(errs, fmt.Sprintf("spec.catalog.endpoints[%d]: duplicate interface %q", i, ep.Interface))
		}
		seen[ep.Interface] = true
		if utf8.RuneCountInString(ep.URL) > MaxEndpointURLLength || !endpointURLRe.MatchString(ep.URL) {
			errs = append(errs, fmt.Sprintf("spec.catalog.endpoints[%d].url must match ^https?://[^\\s/]+ and be at most %d characters", i, MaxEndpointURLLength))
		}
	}
	return errs
}

// validateAccount checks spec.account: names, roles (at most 32, each once)
// and the rotation mode.
func validateAccount(a *c5c3v1alpha1.KeystoneServiceAccountSpec) []string {
	var errs []string
	if a.UserName != "" {
		errs = append(errs, checkName("spec.account.userName", string(a.UserName), 255)...)
	}
	if a.DomainName != "" {
		errs = append(errs, checkName("spec.account.domainName", string(a.DomainName), 64)...)
	}
	errs = append(errs, checkName("spec.account.project.name", string(a.Project.Name), 64)...)
	if len(a.Roles) > 32 {
		errs = append(errs, "spec.account.roles must have at most 32 entries")
	}
	seen := map[c5c3v1alpha1.KeystoneName]bool{}
	for i, r := range a.Roles {
		errs = append(errs, checkName(fmt.Sprintf("spec.account.roles[%d]", i), string(r), 64)...)
		if seen[r] {
			errs = append(errs, fmt.Sprintf("spec.account.roles[%d]: duplicate role %q", i, r))
		}
		seen[r] = true
	}
	if a.Rotation != nil {
		switch a.Rotation.Mode {
		case "", c5c3v1alpha1.RotationModeManual, c5c3v1alpha1.RotationModeScheduled:
		default:
			errs = append(errs, "spec.account.rotation.mode must be Manual or Scheduled")
		}
	}
	return errs
}

// checkName mirrors OpenStackName (max 255) and KeystoneName (max 64): 1 to
// max characters matching c5c3v1alpha1.NamePattern.
func checkName(field, v string, max int) []string {
	if n := utf8.RuneCountInString(v); n < 1 || n > max || !keystoneName.MatchString(v) {
		return []string{fmt.Sprintf("%s must be 1 to %d characters without a comma, control or bidirectional control character", field, max)}
	}
	return nil
}

// joinErrors returns nil for no messages, else one error listing them all.
func joinErrors(msgs []string) error {
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
