//! `min` and `max` of finite `f64`s as plain comparisons. `f64::min`/`max` promise what to do
//! with NaN, which Wasm's own `f64.min`/`f64.max` do differently, so in the actors they are calls
//! to libm's `fmin`/`fmax`: 3.9 % of the fused actor's time, most in the predictor's intent
//! likelihoods (perf, 2026-11-27). For values that cannot be NaN (validated input, results of
//! finite arithmetic) both give the same.

#[inline(always)]
pub fn min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

#[inline(always)]
pub fn max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn agree_with_the_standard_library_on_finite_values() {
        let values = [-3.5, -0.0, 0.0, 1e-300, 2.0, 7.25, f64::MAX, f64::INFINITY, f64::NEG_INFINITY];
        for a in values {
            for b in values {
                assert_eq!(super::min(a, b), a.min(b), "min({a}, {b})");
                assert_eq!(super::max(a, b), a.max(b), "max({a}, {b})");
            }
        }
    }
}
