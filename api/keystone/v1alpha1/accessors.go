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
