#include "supervisor/leftovers.h"

#include "platform/platform.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace stepscope::supervisor::leftovers
{
namespace
{

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

// /proc gives a process's start in whole seconds of the boot time: a process that made its folder
// may look up to this much younger than the folder.
constexpr std::chrono::seconds kStartSlack{30};

std::int64_t nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(Clock::now().time_since_epoch()).count();
}

std::string randomPart()
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static std::mt19937_64 engine{std::random_device{}() ^
                                  static_cast<std::uint64_t>(Clock::now().time_since_epoch().count())};
    std::uniform_int_distribution<std::size_t> pick(0, sizeof letters - 2);
    std::string out(6, 'x');
    for (char &c : out)
        c = letters[pick(engine)];
    return out;
}

struct OwnerFile {
    std::int64_t pid = 0;
    std::string host;
    std::int64_t made = 0;
};

std::optional<OwnerFile> readOwner(const fs::path &folder)
{
    std::error_code error;
    const fs::path file = folder / kOwnerFile;
    if (!fs::is_regular_file(fs::symlink_status(file, error)) || fs::file_size(file, error) > 4096 || error)
        return std::nullopt;
    std::ifstream in(file);
    OwnerFile owner;
    for (std::string key, value; in >> key >> value;) {
        if (key == "pid")
            owner.pid = std::strtoll(value.c_str(), nullptr, 10);
        else if (key == "host")
            owner.host = value;
        else if (key == "made")
            owner.made = std::strtoll(value.c_str(), nullptr, 10);
    }
    if (owner.pid <= 0 || owner.host.empty())
        return std::nullopt;
    return owner;
}

std::string mib(std::int64_t bytes)
{
    std::ostringstream out;
    out.precision(bytes < 10 * 1024 * 1024 ? 2 : 0);
    out << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
    return out.str();
}

std::int64_t bytesUnder(const fs::path &root)
{
    std::error_code error;
    std::int64_t bytes = 0;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        std::error_code sizeError;
        if (it->is_regular_file(sizeError) && !it->is_symlink(sizeError))
            bytes += static_cast<std::int64_t>(it->file_size(sizeError));
    }
    return bytes;
}

} // namespace

std::string makeOwnedFolder(const std::string &parent, const std::string &prefix, std::error_code &error)
{
    error.clear();
    fs::create_directories(parent, error);
    if (error)
        return {};
    const std::int64_t pid = platform::currentProcessId();
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path folder = fs::path(parent) / (prefix + std::to_string(pid) + "-" + randomPart());
        if (!fs::create_directory(folder, error)) {
            if (error)
                return {};
            continue; // taken: another name
        }
        // Private, as mkdtemp makes them: caches and traces are the user's.
        fs::permissions(folder, fs::perms::owner_all, fs::perm_options::replace, error);
        std::ofstream owner(folder / kOwnerFile);
        owner << "pid " << pid << "\nhost " << platform::hostName() << "\nmade " << nowSeconds() << '\n';
        owner.close();
        if (!owner) {
            error = std::make_error_code(std::errc::io_error);
            fs::remove_all(folder);
            return {};
        }
        return folder.string();
    }
    error = std::make_error_code(std::errc::file_exists);
    return {};
}

Owner judgeOwner(const std::string &folder)
{
    const auto owner = readOwner(folder);
    if (!owner)
        return Owner::Unknown;
    const std::string host = platform::hostName();
    if (host.empty() || owner->host != host)
        return Owner::Elsewhere;
    if (!platform::processExists(owner->pid))
        return Owner::Gone;
    // A pid the system gave again to a process started after the folder was made is not the owner.
    const platform::ProcessStart start = platform::processStart(owner->pid);
    if (start.ended)
        return Owner::Gone;
    if (start.time && owner->made > 0 &&
        *start.time > Clock::time_point(std::chrono::seconds(owner->made)) + kStartSlack)
        return Owner::Gone;
    return Owner::Alive;
}

std::vector<Place> placesOf(const std::string &database, const std::string &cacheRoot)
{
    std::vector<Place> places;
    if (!cacheRoot.empty()) {
        places.push_back({cacheRoot, kCachePrefix, "cache folder"});
        places.push_back({cacheRoot, kDoctorPrefix, "doctor compile folder"});
    }
    std::error_code error;
    const std::string temp = fs::temp_directory_path(error).string();
    if (!error)
        places.push_back({temp, kCoordinatorPrefix, "data-parallel folder"});
    if (!database.empty())
        places.push_back({database + ".traces", kTracePrefix, "unfinished trace"});
    return places;
}

std::vector<Found> clearLeftovers(const std::vector<Place> &places)
{
    std::vector<Found> found;
    for (const Place &place : places) {
        std::error_code error;
        for (fs::directory_iterator it(place.parent, error), end; !error && it != end; it.increment(error)) {
            const std::string name = it->path().filename().string();
            std::error_code kindError;
            // Only real folders: a link that matches the name is never followed out of the place.
            if (name.rfind(place.prefix, 0) != 0 || !it->is_directory(kindError) || it->is_symlink(kindError))
                continue;
            Found f;
            f.path = it->path().string();
            f.what = place.what;
            f.owner = judgeOwner(f.path);
            if (f.owner == Owner::Gone) {
                f.bytes = bytesUnder(it->path());
                std::error_code removeError;
                fs::remove_all(it->path(), removeError);
                f.removed = !removeError;
                if (removeError)
                    f.problem = removeError.message();
            }
            found.push_back(std::move(f));
        }
    }
    return found;
}

std::string describe(const std::vector<Found> &found)
{
    std::map<std::string, int> removed;
    int alive = 0, elsewhere = 0, unknown = 0;
    std::int64_t bytes = 0;
    std::string failed, unknownExample;
    for (const Found &f : found) {
        if (f.removed) {
            ++removed[f.what];
            bytes += f.bytes;
        } else if (f.owner == Owner::Gone) {
            failed += (failed.empty() ? "" : "; ") + f.path + " (" + f.problem + ")";
        } else if (f.owner == Owner::Alive) {
            ++alive;
        } else if (f.owner == Owner::Elsewhere) {
            ++elsewhere;
        } else {
            ++unknown;
            if (unknownExample.empty())
                unknownExample = f.path;
        }
    }
    std::string out;
    const auto add = [&out](const std::string &part) { out += (out.empty() ? "" : "; ") + part; };
    if (!removed.empty()) {
        std::string what;
        for (const auto &[kind, n] : removed)
            what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + kind + (n == 1 ? "" : "s");
        add("removed " + what + " left by ended processes (" + mib(bytes) + ")");
    }
    if (!failed.empty())
        add("could not remove " + failed + ": remove them by hand");
    if (alive > 0)
        add("kept " + std::to_string(alive) + " of running processes");
    if (elsewhere > 0)
        add("kept " + std::to_string(elsewhere) + " of other hosts (each host clears its own)");
    if (unknown > 0)
        add("kept " + std::to_string(unknown) + " without an owner (older Stepscope or being made, e.g. " +
            unknownExample + "): remove them by hand when no sweep runs");
    return out.empty() ? "nothing left behind" : out;
}

} // namespace stepscope::supervisor::leftovers
