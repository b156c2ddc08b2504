#include "pages/ledger_columns.h"

#include "models/ledger_format.h"
#include "models/ledger_model.h"

#include <QAction>
#include <QHeaderView>
#include <QMenu>
#include <QRegularExpression>
#include <QSettings>
#include <QTableView>

#include <algorithm>
#include <vector>

namespace stepscope::ui
{
namespace
{

// Settings name the hidden columns, not their indices: a column added later must not inherit
// another's choice.
const char *const kHiddenKey = "ledger/hiddenColumns";

QString columnKey(int column)
{
    switch (column) {
    case LedgerModel::Status:
        return QStringLiteral("status");
    case LedgerModel::FirstStep:
        return QStringLiteral("first-step");
    case LedgerModel::SteadyState:
        return QStringLiteral("steady-state");
    case LedgerModel::Spread:
        return QStringLiteral("spread");
    case LedgerModel::Speedup:
        return QStringLiteral("speed-up");
    case LedgerModel::BreakEven:
        return QStringLiteral("break-even");
    case LedgerModel::Noise:
        return QStringLiteral("noise");
    case LedgerModel::PeakMemory:
        return QStringLiteral("peak-memory");
    case LedgerModel::Energy:
        return QStringLiteral("energy");
    case LedgerModel::Accuracy:
        return QStringLiteral("accuracy");
    case LedgerModel::Failure:
        return QStringLiteral("failure");
    default:
        return {}; // the configuration is never hidden
    }
}

// The pieces a cell's text may wrap between.
QStringList wordsOf(const QString &text, int column)
{
    // One line where there is room (issue 35.6): its figures side by side are what a row compares.
    // Where there is none, it breaks between the start states' figures, never inside one.
    if (column == LedgerModel::FirstStep)
        return text.split(QStringLiteral(" / "));
    if (column != LedgerModel::Configuration)
        return text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    QStringList words;
    qsizetype start = 0;
    for (qsizetype plus = text.indexOf(QLatin1Char('+')); plus >= 0; plus = text.indexOf(QLatin1Char('+'), start)) {
        words << text.mid(start, plus + 1 - start);
        start = plus + 1;
    }
    words << text.mid(start);
    return words;
}

QStringList userHidden()
{
    return QSettings().value(kHiddenKey).toStringList();
}

// Whether no row has anything in `column` for a reader: a sweep without failures has an empty
// Failure column, and a CPU sweep a Peak memory column of "-" alone (no figure to sort by).
bool columnEmpty(const QAbstractItemModel *model, int column)
{
    for (int r = 0; r < model->rowCount(); ++r) {
        const QModelIndex index = model->index(r, column);
        if (column == LedgerModel::PeakMemory || column == LedgerModel::Energy ? index.data(LedgerModel::SortRole).isValid()
                                              : !index.data().toString().isEmpty())
            return false;
    }
    return true;
}

// Columns that hide themselves when empty, whatever the user chose.
bool hidesWhenEmpty(int column)
{
    return column == LedgerModel::Failure || column == LedgerModel::PeakMemory || column == LedgerModel::Energy;
}

struct ColumnFit {
    int column = 0;
    int natural = 0; // the widest cell on one line, or the header
    int least = 0;   // the widest word, or the header
    int width = 0;
};

} // namespace

QString breakableAtPlus(QString text)
{
    return text.replace(QLatin1Char('+'), QStringLiteral("+\u200B"));
}

QVariant LedgerTableProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section >= 0 && section < LedgerModel::ColumnCount) {
        if (role == Qt::DisplayRole)
            return ledgerShortHeader(section); // the first step's states are named in its cells
        if (role == Qt::ToolTipRole) {
            const QString more = FigureSortProxy::headerData(section, orientation, role).toString();
            return more.isEmpty() ? ledgerHeader(section) : ledgerHeader(section) + QStringLiteral(": ") + more;
        }
    }
    return FigureSortProxy::headerData(section, orientation, role);
}

void BreakAtPlusDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    option->text = breakableAtPlus(option->text);
}

// At 1280 px an empty column costs the room the others need.
void hideLedgerColumns(QTableView *view)
{
    const QStringList hidden = userHidden();
    for (int c = 0; c < LedgerModel::ColumnCount; ++c) {
        const bool hide = (!columnKey(c).isEmpty() && hidden.contains(columnKey(c))) ||
                          (hidesWhenEmpty(c) && columnEmpty(view->model(), c));
        if (view->isColumnHidden(c) != hide)
            view->setColumnHidden(c, hide);
    }
}

void fitLedgerColumns(QTableView *view)
{
    hideLedgerColumns(view);
    const QAbstractItemModel *model = view->model();
    QHeaderView *header = view->horizontalHeader();
    const QFontMetrics metrics(view->font());
    std::vector<ColumnFit> fits;
    int total = 0;
    for (int c = 0; c < model->columnCount(); ++c) {
        if (view->isColumnHidden(c))
            continue;
        int line = 0, word = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString text = model->index(r, c).data().toString();
            line = std::max(line, metrics.horizontalAdvance(text));
            for (const QString &w : wordsOf(text, c))
                word = std::max(word, metrics.horizontalAdvance(w));
        }
        // The widest line with the cell's margins (public through the base class, protected in QTableView).
        const int cell = static_cast<const QAbstractItemView *>(view)->sizeHintForColumn(c);
        const int margins = std::max(0, cell - line);
        const int title = header->sectionSizeHint(c);
        ColumnFit fit{c, std::max(cell, title), std::max(title, word + margins)};
        fit.least = std::min(fit.least, fit.natural);
        fit.width = fit.natural;
        total += fit.natural;
        fits.push_back(fit);
    }
    if (fits.empty())
        return;
    const int available = view->viewport()->width();
    const auto configuration = std::find_if(fits.begin(), fits.end(),
                                            [](const ColumnFit &f) { return f.column == LedgerModel::Configuration; });
    if (total <= available) {
        // Room to spare goes to the figures, evenly (issue 35.6): the configuration's name is whole
        // in one line already, and a wider figure column reads easier than a wide gap after a name.
        std::vector<ColumnFit *> figures;
        for (ColumnFit &f : fits)
            if (f.column != LedgerModel::Configuration)
                figures.push_back(&f);
        if (figures.empty())
            figures.push_back(&fits.back());
        const int spare = available - total, each = spare / int(figures.size());
        for (ColumnFit *f : figures)
            f->width += each;
        figures.back()->width += spare - each * int(figures.size());
    } else {
        int excess = total - available;
        // The figures first, in proportion to what each can give (they wrap into two short lines),
        // then the configuration's names, which read best on as few lines as possible.
        int slack = 0;
        for (const ColumnFit &f : fits)
            slack += f.column == LedgerModel::Configuration ? 0 : f.natural - f.least;
        for (ColumnFit &f : fits) {
            if (excess <= 0 || slack <= 0 || f.column == LedgerModel::Configuration)
                continue;
            const int share = f.natural - f.least;
            // Rounded up, so that the widths never add up to more than the viewport.
            const int cut =
                std::min(share, static_cast<int>((static_cast<long long>(share) * excess + slack - 1) / slack));
            f.width -= cut;
            excess -= cut;
            slack -= share;
        }
        if (configuration != fits.end() && excess > 0) {
            const int cut = std::min(excess, configuration->natural - configuration->least);
            configuration->width -= cut;
            excess -= cut;
        }
        // Still too wide (every column at its narrowest): the configuration's names give the rest,
        // elided, with the whole name in their tooltip, rather than the table scrolling sideways.
        if (configuration != fits.end() && excess > 0)
            configuration->width = std::max(configuration->width - excess, metrics.horizontalAdvance(QStringLiteral("baseline")));
    }
    for (const ColumnFit &f : fits)
        header->resizeSection(f.column, f.width);
    view->resizeRowsToContents();
}

void setLedgerColumnShown(QTableView *view, int column, bool shown)
{
    if (column == LedgerModel::Configuration || columnKey(column).isEmpty())
        return;
    QStringList hidden = userHidden();
    hidden.removeAll(columnKey(column));
    if (!shown)
        hidden << columnKey(column);
    QSettings().setValue(kHiddenKey, hidden);
    fitLedgerColumns(view);
}

void installLedgerColumnMenu(QTableView *view)
{
    hideLedgerColumns(view);
    QHeaderView *header = view->horizontalHeader();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(header, &QWidget::customContextMenuRequested, view, [view, header](const QPoint &at) {
        QMenu menu(view);
        for (int c = 0; c < LedgerModel::ColumnCount; ++c) {
            if (columnKey(c).isEmpty())
                continue;
            const bool empty = hidesWhenEmpty(c) && columnEmpty(view->model(), c);
            QAction *action =
                menu.addAction(empty ? QObject::tr("%1 (none in this sweep)").arg(ledgerHeader(c)) : ledgerHeader(c));
            action->setCheckable(true);
            action->setChecked(!userHidden().contains(columnKey(c)));
            action->setEnabled(!empty);
            QObject::connect(action, &QAction::toggled, view,
                             [view, c](bool shown) { setLedgerColumnShown(view, c, shown); });
        }
        menu.exec(header->mapToGlobal(at));
    });
}

} // namespace stepscope::ui
