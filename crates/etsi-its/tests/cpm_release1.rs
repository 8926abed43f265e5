//! TR 103 562 V2.1.1 as written: its class tables value by value, and a vehicle's body frame
//! turned east/north (module doc of `etsi_its::cpm::v1`).

use etsi_its::asn1::cdd_1_3_1_1::its_container::{
    DriveDirection, Heading, HeadingConfidence, HeadingValue, Speed, SpeedConfidence, SpeedValue, StationType,
};
use etsi_its::asn1::cpm_1::cpm_pdu_descriptions::*;
use etsi_its::cpm::v1::{person_class, vehicle_class, CpmV1};
use etsi_its::cpm::{fixtures, ObjectKind, SimpleCpm};

const RECEIVED: u64 = 591_619_380_000;

/// The sample CPM in Release 1 with the first object's class replaced.
fn with_class(class: ObjectClassClass) -> CpmV1 {
    let mut cpm = fixtures::sample().to_cpm_v1().unwrap();
    let objects = &mut cpm.cpm.cpm_parameters.perceived_object_container.as_mut().unwrap().0;
    objects[0].classification =
        Some(ObjectClassDescription(vec![ObjectClass { confidence: ClassConfidence(80), class }]));
    cpm
}

fn read_class(class: ObjectClassClass) -> ObjectKind {
    SimpleCpm::from_cpm_v1(&with_class(class), RECEIVED).unwrap().objects[0].class
}

fn vehicle(code: u8) -> ObjectClassClass {
    ObjectClassClass::vehicle(VehicleSubclass { r_type: VehicleSubclassType(code), confidence: ClassConfidence(0) })
}

fn person(code: u8) -> ObjectClassClass {
    ObjectClassClass::person(PersonSubclass { r_type: PersonSubclassType(code), confidence: ClassConfidence(0) })
}

#[test]
fn vehicle_subclasses_read_as_v2_1_1_numbers_them() {
    use ObjectKind::*;
    let table = [
        (0, Unknown),
        (1, Moped),
        (2, Motorcycle),
        (3, Car),
        (4, Bus),
        (5, LightTruck),
        (6, Truck),
        (7, Trailer),
        (8, SpecialVehicle),
        (9, Tram),
        (10, SpecialVehicle), // emergencyVehicle
        (11, Agricultural),
        (12, Unknown),
        (255, Unknown),
    ];
    for (code, kind) in table {
        assert_eq!(read_class(vehicle(code)), kind, "vehicle code {code}");
    }
    assert_eq!((vehicle_class::PASSENGER_CAR, vehicle_class::HEAVY_TRUCK), (3, 6));
}

#[test]
fn person_animal_and_other_subclasses() {
    use ObjectKind::*;
    let table = [
        (0, Pedestrian), // unknown: still a person
        (1, Pedestrian),
        (2, LightVruVehicle), // personInWheelchair
        (3, Bicycle),         // cyclist
        (4, Pedestrian),      // personWithStroller
        (5, LightVruVehicle), // personOnSkates
        (6, Pedestrian),      // personGroup
        (7, Pedestrian),
    ];
    for (code, kind) in table {
        assert_eq!(read_class(person(code)), kind, "person code {code}");
    }
    let animal = AnimalSubclass { r_type: AnimalSubclassType(0), confidence: ClassConfidence(0) };
    assert_eq!(read_class(ObjectClassClass::animal(animal)), Animal);
    for code in [0, 1] {
        let other = OtherSubclass { r_type: OtherSublassType(code), confidence: ClassConfidence(0) };
        assert_eq!(read_class(ObjectClassClass::other(other)), Unknown, "other code {code}");
    }
}

#[test]
fn every_kind_is_written_with_its_v2_1_1_code() {
    use ObjectKind::*;
    let written = |kind| {
        let mut sample = fixtures::sample();
        sample.objects[0].class = kind;
        let cpm = sample.to_cpm_v1().unwrap();
        let object = &cpm.cpm.cpm_parameters.perceived_object_container.unwrap().0[0];
        object.classification.as_ref().unwrap().0[0].class.clone()
    };
    let vehicles = [
        (Moped, vehicle_class::MOPED),
        (Motorcycle, vehicle_class::MOTORCYCLE),
        (Car, 3),
        (Bus, 4),
        (LightTruck, 5),
        (Truck, 6),
        (Trailer, 7),
        (SpecialVehicle, 8),
        (Tram, 9),
        (Agricultural, 11),
    ];
    for (kind, code) in vehicles {
        assert_eq!(written(kind), vehicle(code), "{kind:?}");
    }
    let people = [(Pedestrian, person_class::PEDESTRIAN), (Bicycle, 3), (LightVruVehicle, 5)];
    for (kind, code) in people {
        assert_eq!(written(kind), person(code), "{kind:?}");
    }
    assert!(matches!(written(Animal), ObjectClassClass::animal(_)));
    assert!(matches!(written(Unknown), ObjectClassClass::other(_)));
}

/// A vehicle's CPM with one object 10 m ahead and 2 m to the left, moving forward at 5 m/s,
/// its yaw 0 (along the vehicle).
fn from_vehicle(heading: u16, orientation: Option<u16>, backward: bool) -> CpmV1 {
    let mut sample = fixtures::sample();
    sample.objects.truncate(1);
    let object = &mut sample.objects[0];
    (object.x_cm, object.y_cm, object.x_conf_cm, object.y_conf_cm) = (1000, 200, 30, 10);
    (object.velocity, object.yaw_decideg) = (Some((500, 0)), Some(0));
    let mut cpm = sample.to_cpm_v1().unwrap();
    cpm.cpm.cpm_parameters.management_container.station_type = StationType(5);
    cpm.cpm.cpm_parameters.station_data_container =
        Some(StationDataContainer::originatingVehicleContainer(OriginatingVehicleContainer::new(
            Heading { heading_value: HeadingValue(heading), heading_confidence: HeadingConfidence(10) },
            Speed { speed_value: SpeedValue(500), speed_confidence: SpeedConfidence(10) },
            orientation.map(|v| WGS84Angle { value: WGS84AngleValue(v), confidence: AngleConfidence(10) }),
            if backward { DriveDirection::backward } else { DriveDirection::forward },
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        )));
    cpm
}

#[test]
fn a_vehicles_body_frame_is_turned_east_north() {
    // (heading, orientation, backward) → the object east/north, its velocity, its yaw
    let cases = [
        ((900, None, false), (1000, 200), (500, 0), 0), // heading east: body = east/north
        ((0, None, false), (-200, 1000), (0, 500), 900), // north: ahead is north, left is west
        ((1800, None, false), (200, -1000), (0, -500), 2700), // south
        ((2700, None, false), (-1000, -200), (-500, 0), 1800), // west
        ((900, None, true), (-1000, -200), (-500, 0), 1800), // reversing eastward: body faces west
        ((0, Some(900), false), (1000, 200), (500, 0), 0), // its orientation angle wins over the heading
    ];
    for ((heading, orientation, backward), position, velocity, yaw) in cases {
        let read = SimpleCpm::from_cpm_v1(&from_vehicle(heading, orientation, backward), RECEIVED).unwrap();
        let object = &read.objects[0];
        let what = format!("heading {heading}, orientation {orientation:?}, backward {backward}");
        assert_eq!((object.x_cm, object.y_cm), position, "{what}");
        assert_eq!(object.velocity, Some(velocity), "{what}");
        assert_eq!(object.yaw_decideg, Some(yaw), "{what}");
    }
    // confidences follow the axes: 0.3 m along the vehicle, 0.1 m across it
    let north = SimpleCpm::from_cpm_v1(&from_vehicle(0, None, false), RECEIVED).unwrap();
    assert_eq!((north.objects[0].x_conf_cm, north.objects[0].y_conf_cm), (10, 30));
    let diagonal = SimpleCpm::from_cpm_v1(&from_vehicle(450, None, false), RECEIVED).unwrap();
    let object = &diagonal.objects[0];
    assert_eq!((object.x_conf_cm, object.y_conf_cm), (22, 22)); // √(0.3² + 0.1²) / √2
    assert_eq!((object.x_cm, object.y_cm), (566, 849)); // (10, 2) turned 45° clockwise
}

#[test]
fn an_rsus_objects_are_read_as_sent() {
    let sample = fixtures::sample();
    let mut cpm = sample.to_cpm_v1().unwrap();
    cpm.cpm.cpm_parameters.station_data_container =
        Some(StationDataContainer::originatingRSUContainer(OriginatingRSUContainer::intersectionReferenceId(
            etsi_its::asn1::dsrc_2_2_1::etsi_its_dsrc::IntersectionReferenceID::new(
                None,
                etsi_its::asn1::dsrc_2_2_1::etsi_its_dsrc::IntersectionID(7),
            ),
        )));
    let read = SimpleCpm::from_cpm_v1(&cpm, RECEIVED).unwrap();
    assert_eq!(
        SimpleCpm { protocol_version: 2, ..read },
        SimpleCpm { reference_time_its_ms: read.reference_time_its_ms, ..sample }
    );
}
