#include "widgets/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QScrollBar>
#include <QWidget>

namespace stepscope::ui
{
namespace
{

class WheelGuard : public QObject
{
  public:
    using QObject::QObject;

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Wheel) {
            auto *widget = qobject_cast<QWidget *>(watched);
            if (widget && !widget->hasFocus()) {
                // Not for this widget: the scroll area around the form scrolls instead.
                for (QWidget *p = widget->parentWidget(); p; p = p->parentWidget())
                    if (auto *area = qobject_cast<QAbstractScrollArea *>(p)) {
                        QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                        break;
                    }
                return true;
            }
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

void installWheelGuard(QWidget *root)
{
    auto *guard = new WheelGuard(root);
    const auto guardOne = [guard](QWidget *w) {
        w->setFocusPolicy(Qt::StrongFocus); // no focus from the wheel alone
        w->installEventFilter(guard);
    };
    for (auto *w : root->findChildren<QAbstractSpinBox *>())
        guardOne(w);
    for (auto *w : root->findChildren<QComboBox *>())
        guardOne(w);
}

} // namespace stepscope::ui
