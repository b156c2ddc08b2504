#pragma once
// The Compare tab: two sweeps side by side. Each side is a (database file, sweep): A defaults to the
// sweep on show, B may come from the same file or from another database added for the comparison
// alone (read-only, off the UI thread; the dashboard keeps recording into its own). Above the
// figures, a banner names every way A and B did not run alike; below them, the chart; and the
// comparison report exports exactly this.
#include "controller/comparison_job.h"
#include "pages/page.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace stepscope::ui
{

class ComparisonChart;
class ComparisonModel;
struct ComparisonReport;

class ComparePage : public Page
{
    Q_OBJECT
  public:
    // Neither is owned; both outlive the page.
    ComparePage(ComparisonModel *model, ComparisonJob *job, QWidget *parent = nullptr);

    QString title() const override { return tr("&Compare"); }
    QString key() const override { return QStringLiteral("compare"); }
    QCustomPlot *chart() const override;
    void clear() override;

    // The dashboard's database: the first file of both pickers.
    void setDatabase(const QString &path);
    // The sweep on show: side A's default.
    void setShownSweep(qint64 sweepId);
    // Compares a sweep with another (an empty path: the dashboard's database), off the UI thread.
    void compare(ComparisonSide a, ComparisonSide b);
    // Reads a database's sweeps for the comparison, read-only; on success it joins the pickers and
    // becomes side B's file. A file that cannot be read is named with why, and nothing changes.
    void addDatabase(const QString &path);
    QStringList databases() const;

    // Writes the comparison on show (table, banner, chart) to `path`; the format is its suffix.
    // False, with why, when there is nothing to export, the format is unknown, or `path` is one of
    // the compared databases' files; else the writing has started (reportWritten/reportFailed).
    bool exportReport(const QString &path, QString *error);
    void exportReportInteractive();
    // What the export writes, drawn from the page as it is.
    ComparisonReport report() const;
    // `path` with the suffix of the chosen file-dialog filter ("PDF (*.pdf)") when it has none.
    static QString withSuffix(const QString &path, const QString &filter);

    void setCaption(const QString &text);
    QString caption() const;
    QString warningText() const;
    bool warningShown() const;
    QString errorText() const;
    // The comparison in one line (report::comparisonVerdict), "" when none is on show.
    QString verdictText() const;
    // The table and chart show the sides the pickers name. False while a change of A or B is being
    // compared (the old figures are greyed out meanwhile) and after it failed (they are cleared).
    bool showsPickedSides() const;
    QTableView *view() const { return view_; }
    QComboBox *sweepPickerA() const { return a_.sweep; }
    QComboBox *sweepPickerB() const { return b_.sweep; }
    ComparisonChart *comparisonChart() const { return chart_; }

  Q_SIGNALS:
    void comparisonShown();
    void databaseAdded(const QString &path);
    void reportWritten(const QString &path);
    void reportFailed(const QString &error);

  private:
    struct Picker {
        QComboBox *file = nullptr;
        QComboBox *sweep = nullptr;
        qint64 wanted = 0; // the sweep to select once the file's list arrives
    };
    void addFile(const QString &path, bool own);
    void fillSweeps(Picker &picker);
    void forgetStale(const QString &path, qint64 sweepId);
    void selectFile(Picker &picker, const QString &path);
    void onSweepsListed(const QString &path, const QList<SweepChoice> &sweeps);
    void onUnreadable(const QString &path, const QString &message);
    void onReady();
    void showError(const QString &text);
    void compareSelected();
    // A or B was changed after a comparison: compare the new pair, never keep the old one on show.
    void followPickers();
    void setStale(bool stale);
    ComparisonSide sideOf(const Picker &picker) const;
    QString absolute(const QString &path) const;

    ComparisonModel *model_;
    ComparisonJob *job_;
    Picker a_, b_;
    QPushButton *compareButton_, *addButton_, *exportButton_;
    QLabel *caption_, *verdict_, *banner_, *error_;
    QTableView *view_;
    ComparisonChart *chart_;
    QString database_;
    QHash<QString, QList<SweepChoice>> sweeps_; // by absolute path
    QStringList adding_;                        // files being read for "Add database…"
    ComparisonSide requestedA_, requestedB_;
    ComparisonSide shownA_, shownB_; // what the model holds (sweep 0: nothing)
    bool comparing_ = false;
    bool settingPickers_ = false;
};

} // namespace stepscope::ui
