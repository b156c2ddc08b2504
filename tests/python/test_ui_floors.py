"""The dashboard's floors (issue 32.5): every file in ui/<floor>/ includes only its own floor or the
floors below, so that a change low down never needs one high up and a newcomer knows where a piece
goes. Bottom to top: models (data), charts (draw models), report (documents of models and charts),
controller (jobs and the run), presenters (follow jobs for views), parts (widgets that pages are
made of: a table's copy action, the lane strip, the run detail dialog), pages (one tab each),
widgets (the window, its panel, header, dialogs and bars). An include of "report/x.h" is the dashboard's report floor where
ui/report/x.h exists, else core's (which every floor may use)."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
UI = ROOT / "ui"
FLOORS = ["models", "charts", "report", "controller", "presenters", "parts", "pages", "widgets"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)


def back_arrows():
    """(file, included, its floor, included floor) for every include that runs up."""
    found = []
    for floor in FLOORS:
        for path in sorted((UI / floor).glob("*.[ch]*")):
            for top, rest in INCLUDE.findall(path.read_text(encoding="utf-8")):
                if top not in FLOORS or not (UI / top / rest).exists():
                    continue  # core's headers, Qt's, or core/report/... with the same folder name
                if FLOORS.index(top) > FLOORS.index(floor):
                    found.append((str(path.relative_to(ROOT)), f"{top}/{rest}", floor, top))
    return found


class UiFloors(unittest.TestCase):
    def test_every_folder_is_a_floor(self):
        folders = sorted(p.name for p in UI.iterdir() if p.is_dir())
        self.assertEqual(folders, sorted(FLOORS), "a new folder in ui/ needs its place in FLOORS")

    def test_no_include_runs_up(self):
        arrows = back_arrows()
        self.assertEqual(arrows, [], "\n".join(f"{f} includes {inc} ({a} below {b})" for f, inc, a, b in arrows))

    def test_pages_are_in_pages(self):
        # A tab of the window is a page: a class named ...Page lives in pages/, whatever it draws.
        misplaced = [str(p.relative_to(ROOT)) for p in (UI / "widgets").glob("*_page.h")]
        self.assertEqual(misplaced, [])


if __name__ == "__main__":
    unittest.main()
