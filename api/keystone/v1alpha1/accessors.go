package v1alpha1

// The accessors below let the identity controller's shared reconcile loop read
// the common spec and write the common status of every kind.

// KeystoneCommon returns the shared spec fields.
func (o *Domain) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Domain) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *Project) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Project) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *Role) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Role) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *Group) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Group) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *User) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *User) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *RoleAssignment) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *RoleAssignment) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *Service) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Service) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneCommon returns the shared spec fields.
func (o *Endpoint) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Endpoint) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// The accessors below return the Keystone IDs a resource records in its
// status (empty until it has applied once). The identity controller reads
// them to tell whether another resource tracks the same Keystone object
// before it renames or deletes one (docs/identity.md, "Edits").

// KeystoneIDs returns status.domainID.
func (o *Domain) KeystoneIDs() []string { return ids(o.Status.DomainID) }

// KeystoneIDs returns status.projectID.
func (o *Project) KeystoneIDs() []string { return ids(o.Status.ProjectID) }

// KeystoneIDs returns status.roleID.
func (o *Role) KeystoneIDs() []string { return ids(o.Status.RoleID) }

// KeystoneIDs returns status.groupID.
func (o *Group) KeystoneIDs() []string { return ids(o.Status.GroupID) }

// KeystoneIDs returns status.userID.
func (o *User) KeystoneIDs() []string { return ids(o.Status.UserID) }

// KeystoneIDs returns status.serviceID.
func (o *Service) KeystoneIDs() []string { return ids(o.Status.ServiceID) }

// KeystoneIDs returns the endpoint IDs of status.endpointIDs.
func (o *Endpoint) KeystoneIDs() []string {
	e := o.Status.EndpointIDs
	return ids(e.Admin, e.Internal, e.Public)
}

// KeystoneIDs returns nothing: a grant has no ID.
func (o *RoleAssignment) KeystoneIDs() []string { return nil }

// ids drops the empty strings of in.
func ids(in ...string) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// The federation kinds are created under an ID the resource chooses
// (docs/identity.md, "Federation").

// KeystoneCommon returns the shared spec fields.
func (o *IdentityProvider) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *IdentityProvider) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneID is spec.id, or metadata.name when spec.id is empty.
func (o *IdentityProvider) KeystoneID() string { return idOrName(o.Spec.ID, o.Name) }

// idOrName is id, or name when id is empty.
func idOrName(id, name string) string {
	if id != "" {
		return id
	}
	return name
}

// KeystoneCommon returns the shared spec fields.
func (o *Mapping) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Mapping) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneID is spec.id, or metadata.name when spec.id is empty.
func (o *Mapping) KeystoneID() string { return idOrName(o.Spec.ID, o.Name) }

// KeystoneCommon returns the shared spec fields.
func (o *Protocol) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *Protocol) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneID is spec.id, or metadata.name when spec.id is empty.
func (o *Protocol) KeystoneID() string { return idOrName(o.Spec.ID, o.Name) }

// KeystoneCommon returns the shared spec fields.
func (o *ServiceProvider) KeystoneCommon() *CommonSpec { return &o.Spec.CommonSpec }

// KeystoneStatus returns the shared status fields.
func (o *ServiceProvider) KeystoneStatus() *CommonStatus { return &o.Status.CommonStatus }

// KeystoneID is spec.id, or metadata.name when spec.id is empty.
func (o *ServiceProvider) KeystoneID() string { return idOrName(o.Spec.ID, o.Name) }
