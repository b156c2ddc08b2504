#pragma once
// What a sweep leaves behind when its process is killed (issue 34.3): the sweep's cache folders
// (start_caches.h, and the doctor's compile folder beside them), a data-parallel coordinator's folder (resources/python/stepscope_py/
// distributed.py) and a profile's scratch folder in the traces folder (run_profile.h). A process
// that ends normally removes its own; one that is killed cannot, so each such folder names its owner
// and the next sweep on the host (and `doctor`) removes those whose owner is gone. The one place
// that makes, judges and removes them. Plain C++: no Qt.
//
//   <parent>/<prefix><pid>-<random>/            the folder (the pid is there for people)
//   <parent>/<prefix><pid>-<random>/owner       "pid N\nhost NAME\nmade SECONDS\n" (Unix time), written
//                                                right after the folder
//
// The owner file, not the name, is what is judged: a folder without one (an older Stepscope's, or
// one being made this instant) is never removed. The Python worker writes the same file
// (stepscope_py/processes.py, write_owner).
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

namespace stepscope::supervisor::leftovers
{

inline constexpr const char *kOwnerFile = "owner";

// The prefixes of the folders each place holds.
inline constexpr const char *kCachePrefix = "sweep-";               // under the cache root
inline constexpr const char *kDoctorPrefix = "doctor-";             // under the cache root: doctor's tiny compile
inline constexpr const char *kCoordinatorPrefix = "stepscope-ddp-"; // under the temporary folder
inline constexpr const char *kTracePrefix = "partial-";             // under a database's traces folder

// Makes <parent>/<prefix><pid>-<random> (and `parent` when it is missing) with its owner file: this
// process on this host. Returns its path; empty with `error` when it cannot be made.
std::string makeOwnedFolder(const std::string &parent, const std::string &prefix, std::error_code &error);

enum class Owner {
    Alive,     // its process runs on this host (even stopped): keep
    Gone,      // its process on this host has ended (or its pid now names a later process): remove
    Elsewhere, // another host's (a shared home folder): that host judges it
    Unknown,   // no owner file that can be read: keep
};
Owner judgeOwner(const std::string &folder);

// A folder where sweeps make owned folders, and what they are called for people.
struct Place {
    std::string parent;
    std::string prefix;
    std::string what; // "cache folder", ...
};
// The places a sweep of `database` (empty: none) with its caches under `cacheRoot` may leave folders
// in: the cache root (sweeps' caches, and the doctor's compile: stepscope_py/doctor.py), the temporary
// folder (data-parallel coordinators) and the traces folder.
std::vector<Place> placesOf(const std::string &database, const std::string &cacheRoot);

struct Found {
    std::string path;
    std::string what;
    Owner owner = Owner::Unknown;
    std::int64_t bytes = 0;
    bool removed = false;
    std::string problem; // why a folder of a gone owner could not be removed
};
// Every folder of `places` that a process made, judged; those whose owner is gone removed.
std::vector<Found> clearLeftovers(const std::vector<Place> &places);

// One line for people: what was removed and kept, and what to do about what could not be.
// "nothing left behind" when nothing was found.
std::string describe(const std::vector<Found> &found);

} // namespace stepscope::supervisor::leftovers
