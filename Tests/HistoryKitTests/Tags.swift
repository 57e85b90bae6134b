import Testing

extension Tag {
    /// A suite that takes long (big stores, many real-store passes): `scripts/quick-test` leaves it out.
    @Tag static var slow: Tag
}
