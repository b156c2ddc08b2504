#pragma once
// Seeded synthetic step times for the tests of core/stats (test_stats.cpp, test_stats_intervals.cpp).
#include <cmath>
#include <cstdint>
#include <vector>

namespace stepscope::stats::synthetic
{

// Deterministic uniform noise in [-1, 1) that does not depend on the standard library's
// distributions (they differ between implementations).
class UnitNoise
{
  public:
    explicit UnitNoise(std::uint64_t seed) : state_(seed) {}
    double next()
    {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state_ >> 11) / 4503599627370496.0 - 1.0; // 2^53 / 2
    }

  private:
    std::uint64_t state_;
};

// Synthetic sweeps shaped like a launch-bound step on an H200: each cold process settles at its own
// level (uniform within +-7.5% of the configuration's, a 15% (max - min) spread, what the ledger's
// noise rule measures), and its steps wander around that level as AR(1) noise (phi 0.7, 3% sd by
// default), so neighbouring steps are not independent either. Seeded, so a failure reproduces.
class Simulation
{
  public:
    explicit Simulation(std::uint64_t seed) : noise_(seed) {}

    // One process: `steps` step times around `level` * (1 + U(-spread/2, spread/2)).
    std::vector<double> process(double level, double spread, std::size_t steps, double phi = 0.7, double sd = 0.03)
    {
        const double own = level * (1.0 + spread * 0.5 * noise_.next());
        std::vector<double> v;
        double e = sd * gaussian();
        for (std::size_t i = 0; i < steps; ++i) {
            e = phi * e + std::sqrt(1 - phi * phi) * sd * gaussian();
            v.push_back(own * (1.0 + e));
        }
        return v;
    }
    std::vector<std::vector<double>> processes(std::size_t n, double level, double spread = 0.15,
                                               std::size_t steps = 100, double phi = 0.7)
    {
        std::vector<std::vector<double>> runs;
        for (std::size_t i = 0; i < n; ++i)
            runs.push_back(process(level, spread, steps, phi));
        return runs;
    }
    double uniform() { return noise_.next(); } // [-1, 1)

  private:
    // Box-Muller over the portable LCG: std::normal_distribution differs between standard libraries.
    double gaussian()
    {
        const double u1 = 0.5 * (noise_.next() + 1.0) + 1e-12, u2 = 0.5 * (noise_.next() + 1.0);
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    UnitNoise noise_;
};

} // namespace stepscope::stats::synthetic
