#include "profile/pickle_reader.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace stepscope::profile
{
namespace
{

PickleRef make(PickleValue::Kind kind)
{
    auto v = std::make_shared<PickleValue>();
    v->kind = kind;
    return v;
}

class Reader
{
  public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}

    PickleRef read(std::string &problem)
    {
        try {
            return run();
        } catch (const Stop &stop) {
            problem = stop.why + " (at byte " + std::to_string(stop.at) + " of " + std::to_string(bytes_.size()) + ")";
            return nullptr;
        }
    }

  private:
    struct Stop {
        std::string why;
        std::size_t at;
    };

    [[noreturn]] void fail(const std::string &why) const { throw Stop{why, at_}; }

    std::uint64_t unsignedLE(std::size_t n)
    {
        if (bytes_.size() - at_ < n)
            fail("the pickle ends inside a value");
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= std::uint64_t(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
        at_ += n;
        return v;
    }

    std::string_view take(std::size_t n)
    {
        if (bytes_.size() - at_ < n)
            fail("the pickle ends inside a string");
        const std::string_view s = bytes_.substr(at_, n);
        at_ += n;
        return s;
    }

    PickleRef pop()
    {
        if (stack_.size() <= floor())
            fail("an opcode needs a value the pickle did not give");
        PickleRef v = std::move(stack_.back());
        stack_.pop_back();
        return v;
    }
    PickleRef &top()
    {
        if (stack_.size() <= floor())
            fail("an opcode needs a value the pickle did not give");
        return stack_.back();
    }
    std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    // The values since the last MARK, taken off the stack.
    std::vector<PickleRef> sinceMark()
    {
        if (marks_.empty())
            fail("a MARK is missing");
        const std::size_t mark = marks_.back();
        marks_.pop_back();
        std::vector<PickleRef> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(mark)),
                                   std::make_move_iterator(stack_.end()));
        stack_.resize(mark);
        return out;
    }
    PickleRef &containerBelow(PickleValue::Kind kind)
    {
        PickleRef &c = top();
        if (!c || c->kind != kind)
            fail(kind == PickleValue::Kind::List ? "items appended to something not a list"
                                                 : "items set on something not a dict");
        return c;
    }
    void setItems(PickleValue &dict, std::vector<PickleRef> &values)
    {
        if (values.size() % 2)
            fail("a dict's keys and values do not pair");
        for (std::size_t i = 0; i < values.size(); i += 2)
            dict.entries.emplace_back(std::move(values[i]), std::move(values[i + 1]));
    }
    void push(PickleRef v) { stack_.push_back(std::move(v)); }
    void pushInt(std::int64_t i)
    {
        auto v = make(PickleValue::Kind::Int);
        v->integer = i;
        push(std::move(v));
    }
    void pushText(std::string_view s)
    {
        auto v = make(PickleValue::Kind::String);
        v->text.assign(s);
        push(std::move(v));
    }
    void memoize(std::uint64_t index) { memo_[index] = top(); }
    void recall(std::uint64_t index)
    {
        const auto it = memo_.find(index);
        if (it == memo_.end())
            fail("a memo entry is read before it is written");
        push(it->second);
    }
    void tuple(std::size_t n)
    {
        if (stack_.size() < floor() + n)
            fail("a tuple needs values the pickle did not give");
        auto t = make(PickleValue::Kind::List);
        t->items.assign(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)),
                        std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        push(std::move(t));
    }

    PickleRef run()
    {
        while (at_ < bytes_.size()) {
            const auto op = static_cast<unsigned char>(bytes_[at_++]);
            switch (op) {
            case 0x80: { // PROTO
                const auto version = unsignedLE(1);
                if (version < 2 || version > 4)
                    fail("pickle protocol " + std::to_string(version) + " (memory_viz reads 2 to 4)");
                break;
            }
            case 0x95: // FRAME: a length only, the bytes follow inline
                unsignedLE(8);
                break;
            case '.': // STOP
                if (stack_.size() != 1 || !marks_.empty())
                    fail("the pickle stops with " + std::to_string(stack_.size()) + " values left");
                return stack_.back();
            case '(':
                marks_.push_back(stack_.size());
                break;
            case '}':
                push(make(PickleValue::Kind::Dict));
                break;
            case ']':
            case ')':
                push(make(PickleValue::Kind::List));
                break;
            case 'a': { // APPEND
                PickleRef v = pop();
                containerBelow(PickleValue::Kind::List)->items.push_back(std::move(v));
                break;
            }
            case 'e': { // APPENDS
                std::vector<PickleRef> values = sinceMark();
                auto &list = containerBelow(PickleValue::Kind::List)->items;
                list.insert(list.end(), std::make_move_iterator(values.begin()), std::make_move_iterator(values.end()));
                break;
            }
            case 'l':
            case 't': { // LIST, TUPLE
                auto list = make(PickleValue::Kind::List);
                list->items = sinceMark();
                push(std::move(list));
                break;
            }
            case 0x85:
                tuple(1);
                break;
            case 0x86:
                tuple(2);
                break;
            case 0x87:
                tuple(3);
                break;
            case 'd': { // DICT
                std::vector<PickleRef> values = sinceMark();
                auto dict = make(PickleValue::Kind::Dict);
                setItems(*dict, values);
                push(std::move(dict));
                break;
            }
            case 's': { // SETITEM
                PickleRef value = pop();
                PickleRef key = pop();
                containerBelow(PickleValue::Kind::Dict)->entries.emplace_back(std::move(key), std::move(value));
                break;
            }
            case 'u': { // SETITEMS
                std::vector<PickleRef> values = sinceMark();
                setItems(*containerBelow(PickleValue::Kind::Dict), values);
                break;
            }
            case 'N':
                push(make(PickleValue::Kind::None));
                break;
            case 0x88:
            case 0x89: { // NEWTRUE, NEWFALSE
                auto b = make(PickleValue::Kind::Bool);
                b->boolean = op == 0x88;
                push(std::move(b));
                break;
            }
            case 'J':
                pushInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(unsignedLE(4))));
                break;
            case 'K':
                pushInt(static_cast<std::int64_t>(unsignedLE(1)));
                break;
            case 'M':
                pushInt(static_cast<std::int64_t>(unsignedLE(2)));
                break;
            case 0x8a: { // LONG1: little-endian two's complement of n bytes
                const auto n = static_cast<std::size_t>(unsignedLE(1));
                if (n > 8)
                    fail("an integer of " + std::to_string(n) + " bytes");
                std::uint64_t v = n ? unsignedLE(n) : 0;
                if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
                    v |= ~std::uint64_t(0) << (8 * n); // sign-extend
                pushInt(static_cast<std::int64_t>(v));
                break;
            }
            case 'G': { // BINFLOAT: big-endian IEEE double
                const std::string_view b = take(8);
                std::uint64_t bits = 0;
                for (char c : b)
                    bits = (bits << 8) | static_cast<unsigned char>(c);
                auto f = make(PickleValue::Kind::Float);
                std::memcpy(&f->real, &bits, sizeof bits);
                push(std::move(f));
                break;
            }
            case 0x8c: // SHORT_BINUNICODE
                pushText(take(static_cast<std::size_t>(unsignedLE(1))));
                break;
            case 'X': // BINUNICODE
                pushText(take(static_cast<std::size_t>(unsignedLE(4))));
                break;
            case 'q':
                memoize(unsignedLE(1));
                break;
            case 'r':
                memoize(unsignedLE(4));
                break;
            case 0x94: // MEMOIZE: the next index
                memoize(memo_.size());
                break;
            case 'h':
                recall(unsignedLE(1));
                break;
            case 'j':
                recall(unsignedLE(4));
                break;
            default: {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", op);
                --at_;
                fail(std::string("opcode ") + hex + " is not one a memory snapshot holds");
            }
            }
        }
        fail("the pickle ends without its STOP");
    }

    std::string_view bytes_;
    std::size_t at_ = 0;
    std::vector<PickleRef> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint64_t, PickleRef> memo_;
};

} // namespace

const PickleValue *PickleValue::get(std::string_view key) const
{
    if (kind != Kind::Dict)
        return nullptr;
    for (const auto &[k, v] : entries)
        if (k && k->kind == Kind::String && k->text == key)
            return v.get();
    return nullptr;
}

double PickleValue::number(double fallback) const
{
    if (kind == Kind::Int)
        return static_cast<double>(integer);
    if (kind == Kind::Float)
        return real;
    return fallback;
}

std::int64_t PickleValue::asInt(std::int64_t fallback) const
{
    return kind == Kind::Int ? integer : fallback;
}

PickleRef readPickle(std::string_view bytes, std::string &problem)
{
    return Reader(bytes).read(problem);
}

} // namespace stepscope::profile
