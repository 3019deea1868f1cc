// Parsing of txcli's options; every refusal names the option and what was wrong.
#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tx::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) != 0) throw CliError("unexpected argument '" + a + "' (options start with --)");
        std::string name = a.substr(2), value;
        const auto eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (flags.count(name)) {
            if (inline_value) throw CliError("option --" + name + " takes no value");
            m_flags.insert(name);
        } else if (valued.count(name)) {
            if (!inline_value) {
                if (i + 1 >= argv.size()) throw CliError("option --" + name + " needs a value");
                value = argv[++i];
            }
            m_values[name].push_back(value);
        } else {
            throw CliError("unknown option --" + name + " (see --help)");
        }
    }
}

std::vector<std::string> split_positional(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                                          std::vector<std::string>& options) {
    std::vector<std::string> positional;
    for (size_t i = 0; i < argv.size(); ++i) {
        if (argv[i].rfind("--", 0) != 0) {
            positional.push_back(argv[i]);
            continue;
        }
        options.push_back(argv[i]);
        if (valued.count(argv[i].substr(2)) && i + 1 < argv.size()) options.push_back(argv[++i]);
    }
    return positional;
}

bool Args::has(const std::string& name) const { return m_values.count(name) > 0; }

std::string Args::get(const std::string& name) const {
    const auto it = m_values.find(name);
    if (it == m_values.end()) throw CliError("missing required option --" + name);
    if (it->second.size() > 1) throw CliError("option --" + name + " given more than once");
    return it->second.front();
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
    return has(name) ? get(name) : fallback;
}

std::optional<std::string> Args::optional(const std::string& name) const {
    if (!has(name)) return std::nullopt;
    return get(name);
}

std::vector<std::string> Args::all(const std::string& name) const {
    const auto it = m_values.find(name);
    return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw CliError("option --" + option + " needs a whole number, got '" + text + "'");
    if (v < lo || v > hi)
        throw CliError("option --" + option + " (" + text + ") must be between " + std::to_string(lo) + " and " +
                       std::to_string(hi));
    return v;
}

double parse_real(const std::string& option, const std::string& text, double lo, double hi) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        throw CliError("option --" + option + " needs a number, got '" + text + "'");
    if (v < lo || v > hi)
        throw CliError("option --" + option + " (" + text + ") must be between " + std::to_string(lo) + " and " +
                       std::to_string(hi));
    return v;
}

long long Args::integer(const std::string& name, long long fallback, long long lo, long long hi) const {
    return has(name) ? parse_integer(name, get(name), lo, hi) : fallback;
}

double Args::real(const std::string& name, double fallback, double lo, double hi) const {
    return has(name) ? parse_real(name, get(name), lo, hi) : fallback;
}

}  // namespace tx::cli
