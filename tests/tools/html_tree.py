"""html_tree: the status page as a tree, for the tests that check its DOM
(demo_status_test.sh, web_status_test.sh). Python 3 standard library only.

parse(path) returns the root Node of an HTML file; Node.find(tag, **attrs)
finds the nodes below (an attribute key `data_x` or `class_` means `data-x`
or `class`); rows(root, table_id) returns the body rows of a table."""
import html.parser

VOID = {"meta", "link", "br", "img", "input", "hr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids, self.text = tag, dict(attrs), parent, [], ""

    def all(self):
        yield self
        for k in self.kids:
            yield from k.all()

    def find(self, tag, **attrs):
        return [n for n in self.all() if n.tag == tag and
                all(n.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())]

    def cls(self):
        return (self.attrs.get("class") or "").split()

    def texts(self):
        return self.text + "".join(k.texts() for k in self.kids)

    def cell(self, c):
        found = [n for n in self.kids if n.tag == "td" and c in n.cls()]
        return found[0] if found else None


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = self.cur = Node("#root", {}, None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


def parse(path):
    t = Tree()
    t.feed(open(path, encoding="utf-8").read())
    return t.root


def rows(root, table):
    t = root.find("table", id=table)
    return [r for r in t[0].all() if r.tag == "tr" and r.parent.tag == "tbody"] if t else []
