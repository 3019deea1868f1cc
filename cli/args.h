// Command-line arguments of txcli: `--name value` options (repeatable) and `--flag` switches,
// checked against the options a command declares. Errors are CliError with a one-line reason.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tx::cli {

struct CliError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // `valued`: options that take a value; `flags`: switches. Anything else is refused.
    Args(const std::vector<std::string>& argv, const std::set<std::string>& valued, const std::set<std::string>& flags);

    bool has(const std::string& name) const;
    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    std::string get(const std::string& name) const;                     // required: throws if absent
    std::string get_or(const std::string& name, const std::string& fallback) const;
    std::optional<std::string> optional(const std::string& name) const;
    std::vector<std::string> all(const std::string& name) const;        // every occurrence
    // Whole numbers within [lo, hi] and finite reals within [lo, hi]; the message names the option.
    long long integer(const std::string& name, long long fallback, long long lo, long long hi) const;
    double real(const std::string& name, double fallback, double lo, double hi) const;

private:
    std::map<std::string, std::vector<std::string>> m_values;
    std::set<std::string> m_flags;
};

// For commands that take paths besides options (convert, average): the words of argv that are
// neither options nor the values of `valued` options, in order; the rest go to `options`, for Args.
std::vector<std::string> split_positional(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                                          std::vector<std::string>& options);

long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi);
double parse_real(const std::string& option, const std::string& text, double lo, double hi);

}  // namespace tx::cli
