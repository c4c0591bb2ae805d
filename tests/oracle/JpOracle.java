// JpOracle: independent JavaParser reference for hunkgen's D_ast inputs (ARCHITECTURE §4).
//
// Usage: java -cp javaparser-core.jar:. JpOracle [--dump|--anchors] FILE [SPAN ...] [-- FILE ...]
// (--anchors: no `dist` lines, for many spans per file)
// A SPAN is START:END, or C,D: a hunk's buggy-side `@@` range as written, turned into a
// span as the released HUNK4J pipeline did (three context lines assumed each side):
// start = C+3; end = C+D-4 when D >= 6 or C <= 3, else C+3 (end may be negative).
// Several jobs separated by `--` run in one JVM; each starts with `file FILE`.
// Prints, over JavaParser's node tree (Node.getChildNodes(), comments excluded):
//   nodes N            number of nodes that have a source range (JavaParser's
//                      UnknownType of an inferred lambda parameter has none)
//   diameter D         longest path in edges
//   anchor K B E DEP   for span K: its anchor's begin/end line and depth, where the
//                      anchor is the smallest line-span node covering the span
//                      (begin <= start && end >= end), ties -> first in pre-order,
//                      root if none
//   span K S E         (C,D form only) the span computed for span K
//   dist I J D         edges between the anchors of spans I < J
//   node P DEP KIND B E  (--dump) every node in pre-order
// Build: javac -cp /usr/share/java/javaparser-core.jar -d OUT JpOracle.java
import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.comments.Comment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class JpOracle {
    static List<Node> order = new ArrayList<>();
    static List<Integer> parent = new ArrayList<>();
    static List<Integer> depth = new ArrayList<>();
    static boolean noDist = false;

    static void collect(Node root) {
        // Iterative pre-order over getChildNodes(), skipping comments.
        ArrayList<Object[]> stack = new ArrayList<>();
        stack.add(new Object[] {root, -1, 0});
        while (!stack.isEmpty()) {
            Object[] it = stack.remove(stack.size() - 1);
            Node n = (Node) it[0];
            int id = order.size();
            order.add(n);
            parent.add((Integer) it[1]);
            depth.add((Integer) it[2]);
            List<Node> kids = n.getChildNodes();
            for (int i = kids.size() - 1; i >= 0; i--) {
                Node k = kids.get(i);
                if (k instanceof Comment) continue;
                stack.add(new Object[] {k, id, (Integer) it[2] + 1});
            }
        }
    }

    static int begin(int i) {
        return order.get(i).getRange().map(r -> r.begin.line).orElse(Integer.MAX_VALUE);
    }

    static int end(int i) {
        return order.get(i).getRange().map(r -> r.end.line).orElse(Integer.MIN_VALUE);
    }

    public static void main(String[] all) throws Exception {
        boolean dump = all.length > 0 && all[0].equals("--dump");
        noDist = all.length > 0 && all[0].equals("--anchors");
        List<String> job = new ArrayList<>();
        for (int i = dump || noDist ? 1 : 0; i <= all.length; i++) {
            if (i == all.length || all[i].equals("--")) {
                if (!job.isEmpty()) run(dump, job.toArray(new String[0]));
                job.clear();
            } else {
                job.add(all[i]);
            }
        }
    }

    static void run(boolean dump, String[] args) throws Exception {
        order.clear();
        parent.clear();
        depth.clear();
        int a = 0;
        System.out.println("file " + args[0]);
        String src = new String(Files.readAllBytes(Paths.get(args[a])), StandardCharsets.UTF_8);
        ParserConfiguration cfg = new ParserConfiguration();
        cfg.setLanguageLevel(ParserConfiguration.LanguageLevel.RAW);
        ParseResult<CompilationUnit> res = new JavaParser(cfg).parse(src);
        if (!res.getResult().isPresent()) {
            System.out.println("error " + res.getProblems());
            return;
        }
        if (!res.isSuccessful()) System.out.println("problems " + res.getProblems().size());
        collect(res.getResult().get());
        int n = order.size();
        int ranged = 0;
        for (Node x : order) if (x.getRange().isPresent()) ranged++;
        System.out.println("nodes " + ranged);
        // Heights by reverse pre-order (children come after parents).
        int[] h1 = new int[n], h2 = new int[n];
        int diam = 0;
        for (int i = n - 1; i >= 0; i--) {
            diam = Math.max(diam, h1[i] + h2[i]);
            int p = parent.get(i);
            if (p >= 0) {
                int h = h1[i] + 1;
                if (h > h1[p]) { h2[p] = h1[p]; h1[p] = h; } else if (h > h2[p]) h2[p] = h;
            }
        }
        System.out.println("diameter " + diam);
        if (dump) {
            for (int i = 0; i < n; i++) {
                System.out.println("node " + i + " " + depth.get(i) + " "
                    + order.get(i).getClass().getSimpleName() + " " + begin(i) + " " + end(i));
            }
        }
        List<Integer> anchors = new ArrayList<>();
        for (int k = a + 1; k < args.length; k++) {
            int s, e;
            if (args[k].contains(",")) {
                String[] cd = args[k].split(",");
                int c = Integer.parseInt(cd[0]), d = Integer.parseInt(cd[1]);
                s = c + 3;
                e = (d >= 6 || c <= 3) ? c + d - 4 : c + 3;
                System.out.println("span " + (k - a - 1) + " " + s + " " + e);
            } else {
                String[] se = args[k].split(":");
                s = Integer.parseInt(se[0]);
                e = Integer.parseInt(se[1]);
            }
            int best = -1, bestW = Integer.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                if (!order.get(i).getRange().isPresent()) continue;
                if (begin(i) <= s && end(i) >= e) {
                    int w = end(i) - begin(i);
                    if (w < bestW) { bestW = w; best = i; }
                }
            }
            if (best < 0) best = 0;
            anchors.add(best);
            System.out.println("anchor " + (k - a - 1) + " " + begin(best) + " " + end(best) + " "
                + depth.get(best) + " " + order.get(best).getClass().getSimpleName());
        }
        for (int i = 0; i < anchors.size() && !noDist; i++) {
            for (int j = i + 1; j < anchors.size(); j++) {
                int x = anchors.get(i), y = anchors.get(j), d = 0;
                while (depth.get(x) > depth.get(y)) { x = parent.get(x); d++; }
                while (depth.get(y) > depth.get(x)) { y = parent.get(y); d++; }
                while (x != y) { x = parent.get(x); y = parent.get(y); d += 2; }
                System.out.println("dist " + i + " " + j + " " + d);
            }
        }
    }
}
