//! Reference DENMs for the codec's tests, the `etsi-its-vectors` binary and
//! downstream tests: a collision-risk warning from a roadside unit
//! ([`sample`]), the [`SimpleDenm`]s at the lower and upper bounds of every
//! field ([`extremes_min`], [`extremes_max`]), and a DENM with every optional
//! component and container present ([`full`]). The UPER bytes of the sample were produced
//! independently of rasn (pycrate 0.8.1, `ITS_DENM_3`, from a hand-written
//! value of the same fields).

use super::*;
use rasn::types::{FixedBitString, Ia5String, NumericString};

pub const SAMPLE_DENM_UPER_HEX: &str =
    "0201000007d184000003e880039137e86a64044dfa1a9cc52240f987311daf0ffffffe11dbba1f41e2184080";

/// Crossing collision risk reported by RSU 2001, relevant within 200 m, with
/// the default validity (600 s, hence omitted on the wire).
pub fn sample() -> SimpleDenm {
    SimpleDenm {
        station_id: 2001,
        originating_station_id: 2001,
        sequence_number: 7,
        detection_time_its_ms: 591_619_380_000,
        reference_time_its_ms: 591_619_380_120,
        event_lat_e7: 478_095_000,
        event_lon_e7: 130_550_000,
        relevance_distance: Some(RelevanceDistance::LessThan200m),
        validity_duration_s: 600,
        termination: None,
        station_type: codes::ROAD_SIDE_UNIT,
        cause: codes::COLLISION_RISK,
        sub_cause: codes::CROSSING_COLLISION_RISK,
        information_quality: 4,
    }
}

/// Every field at its upper bound (latitude / longitude at the largest
/// available value, not the "unavailable" code).
pub fn extremes_max() -> SimpleDenm {
    SimpleDenm {
        station_id: u32::MAX,
        originating_station_id: u32::MAX,
        sequence_number: u16::MAX,
        detection_time_its_ms: crate::checks::TIMESTAMP_ITS_MAX,
        reference_time_its_ms: crate::checks::TIMESTAMP_ITS_MAX,
        event_lat_e7: 900_000_000,
        event_lon_e7: 1_800_000_000,
        relevance_distance: Some(RelevanceDistance::Over10km),
        validity_duration_s: 86_400,
        termination: Some(Termination::IsNegation),
        station_type: u8::MAX,
        cause: u8::MAX,
        sub_cause: u8::MAX,
        information_quality: 7,
    }
}

/// Every field at its lower bound.
pub fn extremes_min() -> SimpleDenm {
    SimpleDenm {
        station_id: 0,
        originating_station_id: 0,
        sequence_number: 0,
        detection_time_its_ms: 0,
        reference_time_its_ms: 0,
        event_lat_e7: -900_000_000,
        event_lon_e7: -1_800_000_000,
        relevance_distance: Some(RelevanceDistance::LessThan50m),
        validity_duration_s: 0,
        termination: Some(Termination::IsCancellation),
        station_type: 0,
        cause: 0, // reserved
        sub_cause: 0,
        information_quality: 0,
    }
}

fn bits<const N: usize>(pattern: [bool; N]) -> FixedBitString<N> {
    let mut bits = FixedBitString::<N>::default();
    for (i, bit) in pattern.into_iter().enumerate() {
        bits.set(i, bit);
    }
    bits
}

fn delta(lat: i32, lon: i32, alt: i16) -> DeltaReferencePosition {
    DeltaReferencePosition {
        delta_latitude: DeltaLatitude(lat),
        delta_longitude: DeltaLongitude(lon),
        delta_altitude: DeltaAltitude(alt),
    }
}

/// A negation DENM (derived from [`sample`]) with every OPTIONAL component of
/// every container present, and values at or near the bounds of their types:
/// exercises each type of the module on the wire.
pub fn full() -> Denm {
    let mut denm = SimpleDenm {
        station_id: 3002,
        termination: Some(Termination::IsNegation),
        relevance_distance: Some(RelevanceDistance::Over10km),
        validity_duration_s: 86_400,
        station_type: codes::PASSENGER_CAR,
        sub_cause: codes::VULNERABLE_ROAD_USER,
        information_quality: 7,
        ..sample()
    }
    .to_denm();

    let position = denm.denm.management.event_position.clone();
    let management = &mut denm.denm.management;
    management.relevance_traffic_direction = Some(RelevanceTrafficDirection::upstreamTraffic);
    management.transmission_interval = Some(TransmissionInterval(1000));
    management.event_position.position_confidence_ellipse = PosConfidenceEllipse {
        semi_major_confidence: SemiAxisLength(250),
        semi_minor_confidence: SemiAxisLength(120),
        semi_major_orientation: HeadingValue(900),
    };
    management.event_position.altitude =
        Altitude { altitude_value: AltitudeValue(-100_000), altitude_confidence: AltitudeConfidence::alt_000_50 };

    let situation = denm.denm.situation.as_mut().expect("to_denm sets the situation container");
    // humanPresenceOnTheRoad(12)
    situation.linked_cause = Some(CauseCode::new(CauseCodeType(12), SubCauseCodeType(2)));
    situation.event_history = Some(EventHistory(vec![
        EventPoint {
            event_position: delta(-131_071, 131_072, -12_700),
            event_delta_time: Some(PathDeltaTime(65_535.into())),
            information_quality: InformationQuality(0),
        },
        EventPoint {
            event_position: delta(10, -10, 12_800),
            event_delta_time: None,
            information_quality: InformationQuality(7),
        },
    ]));

    denm.denm.location = Some(LocationContainer::new(
        Some(Speed { speed_value: SpeedValue(1389), speed_confidence: SpeedConfidence(127) }),
        Some(Heading { heading_value: HeadingValue(3601), heading_confidence: HeadingConfidence(1) }),
        Traces(vec![
            PathHistory(vec![]),
            PathHistory(vec![
                PathPoint { path_position: delta(100, 200, 0), path_delta_time: Some(PathDeltaTime(1.into())) },
                PathPoint { path_position: delta(-100, -200, 1), path_delta_time: None },
            ]),
        ]),
        Some(RoadType::nonUrban_WithStructuralSeparationToOppositeLanes),
    ));

    let dangerous_goods = DangerousGoodsExtended::new(
        DangerousGoodsBasic::flammableLiquids,
        1203,
        true,
        false,
        true,
        Some(Ia5String::try_from("3YE").expect("ASCII")),
        Some(PhoneNumber(NumericString::try_from("0049 89 123").expect("digits and space"))),
        Some("Gefahrgut Müller".to_string()),
    );

    let mut alacarte = AlacarteContainer::new(None, None, None, None, None, None);
    alacarte.lane_position = Some(LanePosition(-1));
    alacarte.impact_reduction = Some(ImpactReductionContainer {
        height_lon_carr_left: HeightLonCarr(1),
        height_lon_carr_right: HeightLonCarr(100),
        pos_lon_carr_left: PosLonCarr(1),
        pos_lon_carr_right: PosLonCarr(127),
        position_of_pillars: PositionOfPillars(vec![PosPillar(1), PosPillar(15), PosPillar(30)]),
        pos_cent_mass: PosCentMass(63),
        wheel_base_vehicle: WheelBaseVehicle(27),
        turning_radius: TurningRadius(255),
        pos_front_ax: PosFrontAx(20),
        position_of_occupants: PositionOfOccupants(bits([
            true, true, false, false, false, true, false, false, false, false, false, false, false, false, true, false,
            false, false, false, true,
        ])),
        vehicle_mass: VehicleMass(1024),
        request_response_indication: RequestResponseIndication::response,
    });
    alacarte.external_temperature = Some(Temperature(-60));
    alacarte.road_works = Some(RoadWorksContainerExtended {
        light_bar_siren_in_use: Some(LightBarSirenInUse(bits([true, false]))),
        closed_lanes: Some(ClosedLanes::new(
            Some(HardShoulderStatus::availableForStopping),
            Some(HardShoulderStatus::availableForDriving),
            Some(DrivingLaneStatus([false, true, true].into_iter().collect())),
        )),
        // heavyTruck(7), trailer(9)
        restriction: Some(RestrictedTypes(vec![StationType(8), StationType(9)])),
        speed_limit: Some(SpeedLimit(30)),
        // roadworks(3)
        incident_indication: Some(CauseCode::new(CauseCodeType(3), SubCauseCodeType(4))),
        recommended_path: Some(ItineraryPath(vec![position.clone(), position])),
        starting_point_speed_limit: Some(delta(-500, 500, 0)),
        traffic_flow_rule: Some(TrafficRule::passToLeft),
        reference_denms: Some(ReferenceDenms(vec![
            ActionID { originating_station_id: StationID(u32::MAX), sequence_number: SequenceNumber(0) },
            ActionID { originating_station_id: StationID(0), sequence_number: SequenceNumber(u16::MAX) },
        ])),
    });
    alacarte.positioning_solution = Some(PositioningSolutionType::dGNSSplusDR);
    alacarte.stationary_vehicle = Some(StationaryVehicleContainer {
        stationary_since: Some(StationarySince::equalOrGreater15Minutes),
        // vehicleBreakdown(91)
        stationary_cause: Some(CauseCode::new(CauseCodeType(91), SubCauseCodeType(9))),
        carrying_dangerous_goods: Some(dangerous_goods),
        number_of_occupants: Some(NumberOfOccupants(127)),
        vehicle_identification: Some(VehicleIdentification::new(
            Some(WMInumber(Ia5String::try_from("WVW").expect("ASCII"))),
            Some(VDS(Ia5String::try_from("ZZZ1KZ").expect("ASCII"))),
        )),
        energy_storage_type: Some(EnergyStorageType(bits([false, true, false, false, true, false, false]))),
    });
    denm.denm.alacarte = Some(alacarte);
    denm
}
