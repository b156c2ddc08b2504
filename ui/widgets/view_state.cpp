#include "widgets/view_state.h"

#include <QHeaderView>
#include <QSettings>
#include <QSplitter>
#include <QVariantList>

namespace stepscope::ui
{
namespace
{

// A page's key: its class, and its place among the roots of that class (two plain QWidgets).
QList<QString> pageKeys(const QList<QWidget *> &pages)
{
    QList<QString> keys;
    for (int i = 0; i < pages.size(); ++i) {
        QString key = QString::fromLatin1(pages[i]->metaObject()->className()).section(QLatin1String("::"), -1);
        int same = 0;
        for (int j = 0; j < i; ++j)
            same += pages[j]->metaObject() == pages[i]->metaObject() ? 1 : 0;
        keys.append(same == 0 ? key : key + QString::number(same));
    }
    return keys;
}

// Headers whose columns a user sizes: horizontal ones with an interactive section.
QList<QHeaderView *> keptHeaders(QWidget *page, const QList<QHeaderView *> &skip)
{
    QList<QHeaderView *> kept;
    for (QHeaderView *header : page->findChildren<QHeaderView *>()) {
        if (header->orientation() != Qt::Horizontal || skip.contains(header))
            continue;
        for (int s = 0; s < header->count(); ++s)
            if (header->sectionResizeMode(s) == QHeaderView::Interactive) {
                kept.append(header);
                break;
            }
    }
    return kept;
}

// Widths of the interactive sections only: the others follow their contents or the view.
void applyWidths(QHeaderView *header, const QVariantList &widths)
{
    if (widths.size() != header->count())
        return;
    for (int s = 0; s < header->count(); ++s)
        if (header->sectionResizeMode(s) == QHeaderView::Interactive && widths[s].toInt() > 0 &&
            !header->isSectionHidden(s) && !(header->stretchLastSection() && s == header->count() - 1))
            header->resizeSection(s, widths[s].toInt());
}

} // namespace

void saveViewState(QSettings &settings, const QString &group, const QList<QWidget *> &pages,
                   const QList<QHeaderView *> &skip)
{
    settings.beginGroup(group);
    const QList<QString> keys = pageKeys(pages);
    for (int p = 0; p < pages.size(); ++p) {
        const QList<QSplitter *> splitters = pages[p]->findChildren<QSplitter *>();
        for (int i = 0; i < splitters.size(); ++i)
            settings.setValue(QStringLiteral("%1/splitter%2").arg(keys[p]).arg(i), splitters[i]->saveState());
        const QList<QHeaderView *> headers = keptHeaders(pages[p], skip);
        for (int i = 0; i < headers.size(); ++i) {
            QVariantList widths;
            for (int s = 0; s < headers[i]->count(); ++s)
                widths.append(headers[i]->sectionSize(s));
            settings.setValue(QStringLiteral("%1/columns%2").arg(keys[p]).arg(i), widths);
        }
    }
    settings.endGroup();
}

void restoreViewState(const QSettings &settings, const QString &group, const QList<QWidget *> &pages,
                      const QList<QHeaderView *> &skip)
{
    const QList<QString> keys = pageKeys(pages);
    for (int p = 0; p < pages.size(); ++p) {
        const QString prefix = group + QLatin1Char('/') + keys[p];
        const QList<QSplitter *> splitters = pages[p]->findChildren<QSplitter *>();
        for (int i = 0; i < splitters.size(); ++i)
            if (const QByteArray state =
                    settings.value(QStringLiteral("%1/splitter%2").arg(prefix).arg(i)).toByteArray();
                !state.isEmpty())
                splitters[i]->restoreState(state);
        const QList<QHeaderView *> headers = keptHeaders(pages[p], skip);
        for (int i = 0; i < headers.size(); ++i) {
            const QVariantList widths = settings.value(QStringLiteral("%1/columns%2").arg(prefix).arg(i)).toList();
            if (widths.isEmpty())
                continue;
            applyWidths(headers[i], widths); // the views' models have their columns from the start
        }
    }
}

} // namespace stepscope::ui
