// Offline stand-in for the Cloud Storage rules runtime that the Firebase Storage emulator starts
// (firebase-tools lib/emulator/storage/rules/runtime.js runs `java -jar <runtime.jar> serve`).
//
// WARNING: it does NOT evaluate Storage security rules. It answers every `load_ruleset` with ok and every
// `verify` with permit, so the Storage emulator starts and serves, but storage.rules are not enforced.
// devstack/install.sh uses it only when the real runtime jar is not in the emulator cache and cannot be
// downloaded (offline machines). Test Storage rules against the real runtime.
//
// Protocol (one JSON document per line):
//   stdout at start:  {"id": -1, "status": "ok", ...}              resolves the emulator's start promise
//   stdin:            {"action": "load_ruleset", "context": {"rulesetName", "source": {"files": [{name, content}]}}, "id": N}
//   stdout:           {"id": N, "status": "ok", "errors": [], "warnings": [], "result": {"rulesVersion": V}}
//   stdin:            {"action": "verify", "context": {...}, "id": N}
//   stdout:           {"id": N, "status": "ok", "errors": [], "warnings": [], "result": {"permit": true}}
// Anything else gets an ok answer with an empty result. Exits at end of input.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class StorageRulesStandIn {
    private static final Pattern RULES_VERSION =
            Pattern.compile("rules_version\\s*=\\s*['\"](\\d+)['\"]");

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        // Non-JSON stdout lines are logged by the emulator at INFO level; stderr would read as an error.
        out.println("StorageRulesStandIn: Storage security rules are NOT evaluated (every request is permitted).");
        out.println("{\"id\":-1,\"status\":\"ok\",\"errors\":[],\"warnings\":[],\"result\":{}}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            Object id = null;
            String result = "{}";
            try {
                Object parsed = new Json(line).parse();
                if (!(parsed instanceof Map)) {
                    continue;
                }
                Map<?, ?> request = (Map<?, ?>) parsed;
                id = request.get("id");
                Object action = request.get("action");
                if ("load_ruleset".equals(action)) {
                    result = "{\"rulesVersion\":" + rulesVersion(request.get("context")) + "}";
                } else if ("verify".equals(action)) {
                    result = "{\"permit\":true}";
                }
            } catch (RuntimeException e) {
                System.err.println("StorageRulesStandIn: cannot parse request: " + e.getMessage());
                continue;
            }
            if (id == null) {
                continue;
            }
            String idJson = id instanceof Double && ((Double) id) == Math.rint((Double) id)
                    ? Long.toString(((Double) id).longValue())
                    : String.valueOf(id);
            out.println("{\"id\":" + idJson + ",\"status\":\"ok\",\"errors\":[],\"warnings\":[],\"result\":" + result + "}");
        }
    }

    /** The rules_version declared by the first source file; rules without one are version 1. */
    private static int rulesVersion(Object context) {
        if (context instanceof Map) {
            Object source = ((Map<?, ?>) context).get("source");
            if (source instanceof Map) {
                Object files = ((Map<?, ?>) source).get("files");
                if (files instanceof List) {
                    for (Object file : (List<?>) files) {
                        if (file instanceof Map) {
                            Object content = ((Map<?, ?>) file).get("content");
                            if (content instanceof String) {
                                Matcher m = RULES_VERSION.matcher((String) content);
                                if (m.find()) {
                                    return Integer.parseInt(m.group(1));
                                }
                            }
                        }
                    }
                }
            }
        }
        return 1;
    }

    /** A minimal JSON reader: objects become maps, arrays lists, numbers doubles. */
    private static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object parse() {
            Object v = value();
            ws();
            if (i != s.length()) {
                throw new IllegalArgumentException("trailing data at " + i);
            }
            return v;
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private char peek() {
            ws();
            if (i >= s.length()) {
                throw new IllegalArgumentException("unexpected end");
            }
            return s.charAt(i);
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i);
            }
            i++;
        }

        private Object value() {
            char c = peek();
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw new IllegalArgumentException("bad literal at " + i);
            }
            i += word.length();
            return v;
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            expect('{');
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                if (peek() != '"') {
                    throw new IllegalArgumentException("expected key at " + i);
                }
                String k = string();
                expect(':');
                m.put(k, value());
                char c = peek();
                i++;
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    throw new IllegalArgumentException("expected ',' or '}' at " + (i - 1));
                }
            }
        }

        private List<Object> array() {
            List<Object> l = new ArrayList<>();
            expect('[');
            if (peek() == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                char c = peek();
                i++;
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    throw new IllegalArgumentException("expected ',' or ']' at " + (i - 1));
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);
                }
            }
            throw new IllegalArgumentException("unterminated string");
        }

        private Double number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("unexpected '" + s.charAt(i) + "' at " + i);
            }
            return Double.valueOf(s.substring(start, i));
        }
    }
}
