//! Least-squares fits of samples (t, v): the predictor's speed and acceleration, the bench's
//! latency trend.

/// Least-squares line v = a + b·t through `samples` (t, v): (a, b), the line's value at t = 0 and
/// its slope; None when the times do not spread.
pub fn line_fit(samples: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = samples.len() as f64;
    let (mt, mv) = (samples.iter().map(|s| s.0).sum::<f64>() / n, samples.iter().map(|s| s.1).sum::<f64>() / n);
    let stt: f64 = samples.iter().map(|s| (s.0 - mt).powi(2)).sum();
    if stt.is_nan() || stt <= 1e-12 {
        return None;
    }
    let stv: f64 = samples.iter().map(|s| (s.0 - mt) * (s.1 - mv)).sum();
    let slope = stv / stt;
    Some((mv - slope * mt, slope))
}

/// Least-squares parabola v = c0 + c1·t + c2·t² through `samples` (t, v), from its normal
/// equations; None when they are singular.
pub fn parabola_fit(samples: &[(f64, f64)]) -> Option<[f64; 3]> {
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for &(t, v) in samples {
        let basis = [1.0, t, t * t];
        for a in 0..3 {
            r[a] += basis[a] * v;
            for b in 0..3 {
                m[a][b] += basis[a] * basis[b];
            }
        }
    }
    solve3(m, r)
}

/// Solves a 3×3 linear system (Cramer's rule); None when singular.
fn solve3(m: [[f64; 3]; 3], r: [f64; 3]) -> Option<[f64; 3]> {
    let det = |a: [[f64; 3]; 3]| {
        a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    };
    let d = det(m);
    if d.abs() < 1e-12 {
        return None;
    }
    let column = |k: usize| {
        let mut a = m;
        for (row, value) in a.iter_mut().zip(r) {
            row[k] = value;
        }
        det(a) / d
    };
    Some([column(0), column(1), column(2)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_and_a_parabola_are_found_again_and_coincident_times_give_none() {
        let line: Vec<(f64, f64)> = (0..5).map(|i| (-(i as f64) * 0.25, 3.0 - 2.0 * (i as f64) * 0.25)).collect();
        let (at_zero, slope) = line_fit(&line).unwrap();
        assert!((at_zero - 3.0).abs() < 1e-9 && (slope - 2.0).abs() < 1e-9, "{at_zero} {slope}");
        let parabola: Vec<(f64, f64)> =
            (0..6).map(|i| i as f64 * -0.2).map(|t| (t, 1.0 + 0.5 * t - 1.5 * t * t)).collect();
        let c = parabola_fit(&parabola).unwrap();
        assert!((c[0] - 1.0).abs() < 1e-9 && (c[1] - 0.5).abs() < 1e-9 && (c[2] + 1.5).abs() < 1e-9, "{c:?}");
        assert_eq!(line_fit(&[(1.0, 2.0), (1.0, 3.0)]), None);
        assert_eq!(parabola_fit(&[(1.0, 2.0), (1.0, 3.0), (1.0, 4.0)]), None);
    }
}
