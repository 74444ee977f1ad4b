//! Tracking ids handed out when an order ships.

use uuid::Uuid;

/// A new tracking id: a random (v4) UUID in its hyphenated form.
pub fn create_tracking_id() -> String {
    Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracking_ids_are_uuids() {
        let id = create_tracking_id();
        assert_eq!(id.len(), 36);
        assert!(Uuid::parse_str(&id).is_ok());
    }

    #[test]
    fn tracking_ids_differ() {
        assert_ne!(create_tracking_id(), create_tracking_id());
    }
}
