// The readers of each output format, as tests use them (output_checks.h).
#include "tests/fuzz/output_checks.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <fmt/format.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cstdlib>
#include <memory>
#include <set>

#include "grader/result/text_escape.h"

namespace gpugrade::checks {
namespace {

// The code points of valid UTF-8 `text` (the caller checks validity first).
std::u32string code_points(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? lead : lead & (0xFF >> (length + 1));
    for (size_t k = 1; k < length && i + k < text.size(); ++k)
      c = c << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out += c;
    i += length;
  }
  return out;
}

bool is_white_space(char32_t c) {  // .NET's Char.IsWhiteSpace, which the runner's Trim() uses
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t end = text.find_first_of("\r\n", start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return lines;
    start = end + 1;
  }
}

std::string shown(std::string_view text) { return escape_for_terminal(text.substr(0, 200)); }

}  // namespace

std::string runner_commands(std::string_view output, bool annotations) {
  for (std::string_view line : lines_of(output)) {
    if (escape_invalid_utf8(line) != line) return "invalid UTF-8 in line: " + shown(line);
    std::u32string points = code_points(line);
    size_t skip = 0;
    while (skip < points.size() && is_white_space(points[skip])) ++skip;
    const bool command = points.size() >= skip + 2 && points[skip] == ':' && points[skip + 1] == ':';
    const bool annotation =
        annotations && skip == 0 &&
        (line.starts_with("::error ") || line.starts_with("::warning ") || line.starts_with("::notice ") ||
         line.starts_with("::error::") || line.starts_with("::warning::") || line.starts_with("::notice::"));
    if (command && !annotation) return "a `::` command line: " + shown(line);
    // The runner reads a line as a `::` command first; only lines that are not one are read for `##[`.
    if (!annotation && line.find("##[") != std::string_view::npos)
      return "a `##[` command in line: " + shown(line);
  }
  return "";
}

std::string terminal_controls(std::string_view output) {
  if (escape_invalid_utf8(output) != output) return "invalid UTF-8";
  for (char32_t c : code_points(output)) {
    const bool control = (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7F && c <= 0x9F) || c == 0x061C ||
                         c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
                         (c >= 0x2066 && c <= 0x2069);
    if (control) return fmt::format("control character U+{:04X}", static_cast<uint32_t>(c));
  }
  return "";
}

std::string xml_error(std::string_view xml) {
  xmlResetLastError();
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "report.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  std::string error;
  if (doc == nullptr) {
    const xmlError* last = xmlGetLastError();
    error = last != nullptr && last->message != nullptr
                ? fmt::format("line {}: {}", last->line, last->message)
                : "libxml2 could not parse it";
  }
  xmlFreeDoc(doc);
  return error;
}

std::string render_markdown(std::string_view markdown) {
  cmark_gfm_core_extensions_ensure_registered();
  const int options = CMARK_OPT_UNSAFE;
  std::unique_ptr<cmark_parser, void (*)(cmark_parser*)> parser(cmark_parser_new(options), cmark_parser_free);
  for (const char* name : {"table", "autolink", "strikethrough"})
    cmark_parser_attach_syntax_extension(parser.get(), cmark_find_syntax_extension(name));
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  cmark_node* document = cmark_parser_finish(parser.get());
  char* html = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser.get()));
  std::string out = html;
  std::free(html);
  cmark_node_free(document);
  return out;
}

std::string foreign_markdown_tags(std::string_view html) {
  static const std::set<std::string, std::less<>> kAllowed = {"h1",    "h2",     "h3",   "h4",  "p",  "table",
                                                              "thead", "tbody",  "tr",   "th",  "td", "ul",
                                                              "li",    "strong", "code", "pre", "br"};
  for (size_t at = html.find('<'); at != std::string_view::npos; at = html.find('<', at + 1)) {
    size_t name = at + 1 + (at + 1 < html.size() && html[at + 1] == '/');
    size_t end = name;
    while (end < html.size() && std::isalnum(static_cast<unsigned char>(html[end]))) ++end;
    const std::string_view tag = html.substr(name, end - name);
    const size_t close = html.find('>', end);
    const std::string_view rest = html.substr(end, close == std::string_view::npos ? 0 : close - end);
    // The only attribute cmark-gfm writes for these is a table column's alignment.
    const bool plain_attributes =
        rest.empty() || rest == " /" || rest == " align=\"right\"" || rest == " align=\"left\"";
    if (!kAllowed.contains(tag) || !plain_attributes)
      return "markup from learner text: " + shown(html.substr(at, 120));
  }
  return "";
}

std::string html_report_problems(std::string_view html) {
  static const std::set<std::string, std::less<>> kElements = {
      "html", "head", "meta", "title",  "style", "body", "header",  "section",
      "h1",   "span", "p",    "ol",     "li",    "a",    "details", "summary",
      "pre",  "div",  "code", "script", "table", "tr",   "th",      "td"};
  htmlDocPtr doc = htmlReadMemory(html.data(), static_cast<int>(html.size()), "report.html", "UTF-8",
                                  HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
  if (doc == nullptr) return "libxml2 could not parse the page";
  std::string problem;
  bool policy = false;
  size_t scripts = 0, sections = 0;
  const auto visit = [&](auto&& self, xmlNodePtr node) -> void {
    for (; node != nullptr && problem.empty(); node = node->next) {
      if (node->type != XML_ELEMENT_NODE) continue;
      const std::string name = reinterpret_cast<const char*>(node->name);
      if (!kElements.contains(name)) problem = "element <" + name + "> in the page";
      scripts += name == "script";
      sections += name == "section";
      for (xmlAttrPtr a = node->properties; a != nullptr && problem.empty(); a = a->next) {
        const std::string attribute = reinterpret_cast<const char*>(a->name);
        xmlChar* raw = xmlNodeListGetString(doc, a->children, 1);
        const std::string value = raw != nullptr ? reinterpret_cast<const char*>(raw) : "";
        xmlFree(raw);
        if (attribute.starts_with("on")) problem = "event handler " + attribute + " on <" + name + ">";
        if (attribute == "src" || (attribute == "href" && !value.starts_with("#")))
          problem = fmt::format("{}=\"{}\" on <{}> leaves the page", attribute, shown(value), name);
        if (name == "meta" && attribute == "http-equiv" && value == "Content-Security-Policy") policy = true;
      }
      self(self, node->children);
    }
  };
  visit(visit, xmlDocGetRootElement(doc));
  xmlFreeDoc(doc);
  if (!problem.empty()) return problem;
  if (!policy) return "no Content-Security-Policy";
  // One script of the page's own and one block of picture data per result section: nothing else runs.
  if (scripts != sections + 1) return fmt::format("{} script elements for {} results", scripts, sections);
  return "";
}

std::vector<std::vector<std::string>> parse_csv(std::string_view csv, std::string* error) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted_field = false, in_quotes = false;
  for (size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    if (in_quotes) {
      if (c != '"')
        field += c;
      else if (i + 1 < csv.size() && csv[i + 1] == '"')
        field += csv[++i];
      else
        in_quotes = false;
    } else if (c == '"') {
      if (!field.empty() || quoted_field) {
        *error = fmt::format("byte {}: a quote inside an unquoted field", i);
        return {};
      }
      in_quotes = quoted_field = true;
    } else if (c == ',' || c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      quoted_field = false;
      if (c == '\n') rows.push_back(std::move(row)), row.clear();
    } else if (quoted_field) {
      *error = fmt::format("byte {}: text after a closing quote", i);
      return {};
    } else if (c == '\r') {
      *error = fmt::format("byte {}: a carriage return outside quotes", i);
      return {};
    } else {
      field += c;
    }
  }
  if (in_quotes || !row.empty() || !field.empty()) *error = "the last row is not ended";
  return rows;
}

bool is_formula(std::string_view field) {
  return !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
}

}  // namespace gpugrade::checks
