//! Cooperative Awareness Message, ETSI EN 302 637-2 V1.4.1 (c-its-parser's `cam_1_4_1`, over the
//! Release 1 ITS-Container), and [`SimpleCam`], the flat view of a vehicle's (or an RSU's) CAM.

pub use c_its_parser::standards::cam_1_4_1::cam_pdu_descriptions::*;
pub use c_its_parser::standards::cdd_1_3_1_1::its_container::*;

use crate::checks::{
    heading_code, heading_from_code, require_available, speed_code, speed_from_code, yaw_rate_code, yaw_rate_from_code,
    ExpectedHeader, ACCELERATION_UNAVAILABLE,
};
use crate::CodecError;

/// `protocolVersion` of an EN 302 637-2 V1.4.1 CAM.
pub const PROTOCOL_VERSION: u8 = 2;

/// `messageID` of a CAM (`cam(2)`).
pub const MESSAGE_ID: u8 = 2;

const HEADER: ExpectedHeader =
    ExpectedHeader::new("CAM", "messageID", MESSAGE_ID, PROTOCOL_VERSION, "EN 302 637-2 V1.4.1");

/// `ExteriorLights` bits.
const LEFT_TURN_SIGNAL: usize = 2;
const RIGHT_TURN_SIGNAL: usize = 3;

/// A CAM reduced to what the pipeline can use: who, where, how it moves, and whether it
/// signals a turn. `None` is "unavailable" (or not sent: an RSU's CAM has no vehicle data).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleCam {
    /// Header `stationID`.
    pub station_id: u32,
    /// `stationType` (5 = passengerCar, 15 = roadSideUnit, ...).
    pub station_type: u8,
    /// `generationDeltaTime`: TimestampIts mod 65536, ms.
    pub generation_delta_time_ms: u16,
    /// Reference position latitude, 1e-7°.
    pub lat_e7: i32,
    /// Reference position longitude, 1e-7°.
    pub lon_e7: i32,
    /// `heading`: 0.1° clockwise from north, 0..=3599.
    pub heading_decideg: Option<u16>,
    /// `speed`: cm/s, 0..=16382.
    pub speed_cm_s: Option<u16>,
    /// `yawRate`: 0.01°/s, positive to the left (counter-clockwise), -32766..=32766.
    pub yaw_rate_centideg_s: Option<i16>,
    /// `longitudinalAcceleration`: 0.1 m/s², positive forward, -160..=160.
    pub longitudinal_acceleration_dm_s2: Option<i16>,
    /// Left and right turn signals (`exteriorLights`), when the CAM carries its low-frequency
    /// container.
    pub turn_signals: Option<TurnSignals>,
}

/// Turn signals on, from `ExteriorLights`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TurnSignals {
    pub left: bool,
    pub right: bool,
}

crate::checks::pdu_codec!(CAM, "CAM", feature = "cam");

impl SimpleCam {
    /// Builds the CAM: a vehicle's high-frequency container (also for an RSU's station type, so
    /// the motion travels), with "unavailable" codes for what is `None` and for the data the
    /// view does not carry (drive direction, length, width, curvature), and a low-frequency
    /// container (vehicle role default, empty path history) only with turn signals. Values are
    /// clamped into their ranges.
    pub fn to_cam(&self) -> CAM {
        let heading = Heading::new(HeadingValue(heading_code(self.heading_decideg)), HeadingConfidence(127));
        let speed = Speed::new(SpeedValue(speed_code(self.speed_cm_s)), SpeedConfidence(127));
        let acceleration = LongitudinalAcceleration::new(
            LongitudinalAccelerationValue(
                self.longitudinal_acceleration_dm_s2.map_or(ACCELERATION_UNAVAILABLE, |a| a.clamp(-160, 160)),
            ),
            AccelerationConfidence(102),
        );
        let yaw_rate =
            YawRate::new(YawRateValue(yaw_rate_code(self.yaw_rate_centideg_s)), YawRateConfidence::unavailable);
        let high_frequency = BasicVehicleContainerHighFrequency::new(
            heading,
            speed,
            DriveDirection::unavailable,
            VehicleLength::new(VehicleLengthValue(1023), VehicleLengthConfidenceIndication::unavailable),
            VehicleWidth(62),
            acceleration,
            Curvature::new(CurvatureValue(1023), CurvatureConfidence::unavailable),
            CurvatureCalculationMode::unavailable,
            yaw_rate,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        );
        let low_frequency = self.turn_signals.map(|signals| {
            let mut lights = ExteriorLights(Default::default());
            lights.0.set(LEFT_TURN_SIGNAL, signals.left);
            lights.0.set(RIGHT_TURN_SIGNAL, signals.right);
            LowFrequencyContainer::basicVehicleContainerLowFrequency(BasicVehicleContainerLowFrequency::new(
                VehicleRole::default,
                lights,
                PathHistory(vec![]),
            ))
        });
        let (lat, lon) = (self.lat_e7, self.lon_e7);
        CAM::new(
            ItsPduHeader {
                protocol_version: PROTOCOL_VERSION,
                message_id: MESSAGE_ID,
                station_id: StationID(self.station_id),
            },
            CoopAwareness::new(
                GenerationDeltaTime(self.generation_delta_time_ms),
                CamParameters::new(
                    BasicContainer::new(
                        StationType(self.station_type),
                        crate::checks::position_without_confidence!(crate::cam, lat, lon),
                    ),
                    HighFrequencyContainer::basicVehicleContainerHighFrequency(high_frequency),
                    low_frequency,
                    None,
                ),
            ),
        )
    }

    /// Reads the view out of a decoded CAM. Errors when it is not an EN 302 637-2 V1.4.1 CAM
    /// (`messageID` ≠ 2, `protocolVersion` ≠ 2) or its reference position is unavailable.
    pub fn from_cam(cam: &CAM) -> Result<SimpleCam, CodecError> {
        HEADER.check(cam.header.protocol_version, cam.header.message_id)?;
        let parameters = &cam.cam.cam_parameters;
        let basic = &parameters.basic_container;
        let position = &basic.reference_position;
        require_available(position.latitude.0, position.longitude.0, "CAM reference position")?;
        let mut simple = SimpleCam {
            station_id: cam.header.station_id.0,
            station_type: basic.station_type.0,
            generation_delta_time_ms: cam.cam.generation_delta_time.0,
            lat_e7: position.latitude.0,
            lon_e7: position.longitude.0,
            heading_decideg: None,
            speed_cm_s: None,
            yaw_rate_centideg_s: None,
            longitudinal_acceleration_dm_s2: None,
            turn_signals: None,
        };
        if let HighFrequencyContainer::basicVehicleContainerHighFrequency(hf) = &parameters.high_frequency_container {
            simple.heading_decideg = heading_from_code(hf.heading.heading_value.0);
            simple.speed_cm_s = speed_from_code(hf.speed.speed_value.0);
            simple.yaw_rate_centideg_s = yaw_rate_from_code(hf.yaw_rate.yaw_rate_value.0);
            simple.longitudinal_acceleration_dm_s2 =
                Some(hf.longitudinal_acceleration.longitudinal_acceleration_value.0)
                    .filter(|&a| a != ACCELERATION_UNAVAILABLE);
        }
        if let Some(LowFrequencyContainer::basicVehicleContainerLowFrequency(lf)) = &parameters.low_frequency_container
        {
            let lights = &lf.exterior_lights.0;
            simple.turn_signals =
                Some(TurnSignals { left: lights[LEFT_TURN_SIGNAL], right: lights[RIGHT_TURN_SIGNAL] });
        }
        Ok(simple)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moving() -> SimpleCam {
        SimpleCam {
            station_id: 4711,
            station_type: 5,
            generation_delta_time_ms: 65_535,
            lat_e7: 478_095_000,
            lon_e7: 130_550_000,
            heading_decideg: Some(3599),
            speed_cm_s: Some(1389),
            yaw_rate_centideg_s: Some(-250),
            longitudinal_acceleration_dm_s2: Some(-160),
            turn_signals: Some(TurnSignals { left: true, right: false }),
        }
    }

    fn round_trip(cam: &SimpleCam) -> SimpleCam {
        let bytes = encode(&cam.to_cam()).unwrap();
        SimpleCam::from_cam(&decode(&bytes).unwrap()).unwrap()
    }

    #[test]
    fn simple_cams_round_trip() {
        let parked = SimpleCam {
            heading_decideg: None,
            speed_cm_s: None,
            yaw_rate_centideg_s: None,
            longitudinal_acceleration_dm_s2: None,
            turn_signals: None,
            ..moving()
        };
        let hazard = SimpleCam { turn_signals: Some(TurnSignals { left: true, right: true }), ..moving() };
        for cam in [moving(), parked, hazard] {
            assert_eq!(round_trip(&cam), cam);
        }
    }

    #[test]
    fn out_of_range_values_are_clamped() {
        let wild = SimpleCam {
            heading_decideg: Some(3600 + 15),
            speed_cm_s: Some(u16::MAX),
            yaw_rate_centideg_s: Some(i16::MIN),
            longitudinal_acceleration_dm_s2: Some(i16::MAX),
            ..moving()
        };
        let back = round_trip(&wild);
        assert_eq!(back.heading_decideg, Some(15));
        assert_eq!(back.speed_cm_s, Some(16_382));
        assert_eq!(back.yaw_rate_centideg_s, Some(-32_766));
        assert_eq!(back.longitudinal_acceleration_dm_s2, Some(160));
    }

    #[test]
    fn turn_signals_are_exterior_lights_bits_2_and_3() {
        let cam = moving().to_cam();
        let Some(LowFrequencyContainer::basicVehicleContainerLowFrequency(lf)) =
            &cam.cam.cam_parameters.low_frequency_container
        else {
            panic!("no low-frequency container")
        };
        let bits: Vec<bool> = (0..8).map(|i| lf.exterior_lights.0[i]).collect();
        assert_eq!(bits, [false, false, true, false, false, false, false, false]);
    }

    #[test]
    fn unusable_cams_are_rejected_with_a_reason() {
        let mut cam = moving().to_cam();
        cam.header.message_id = 1;
        assert!(SimpleCam::from_cam(&cam).unwrap_err().message().contains("not a CAM"));
        let mut cam = moving().to_cam();
        cam.header.protocol_version = 1;
        assert!(SimpleCam::from_cam(&cam).unwrap_err().message().contains("protocolVersion 1"));
        let nowhere = SimpleCam { lat_e7: 900_000_001, ..moving() };
        assert!(SimpleCam::from_cam(&nowhere.to_cam()).unwrap_err().message().contains("unavailable"));
        assert!(decode(&[]).is_err());
        let mut long = encode(&moving().to_cam()).unwrap();
        long.push(0);
        assert!(decode(&long).unwrap_err().message().contains("trailing"));
    }

    #[test]
    fn xer_round_trips() {
        let cam = moving().to_cam();
        let xml = encode_xer(&cam).unwrap();
        assert!(xml.starts_with(b"<CAM>") || xml.starts_with(b"<?xml"), "{}", String::from_utf8_lossy(&xml));
        assert_eq!(decode_xer(&xml).unwrap(), cam);
    }
}
