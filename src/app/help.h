// SPDX-License-Identifier: MIT
#pragma once

/**
 * Help in the window: "About this scheme" (formula, paper, what to look at, which of the
 * articles the explorer started from explains it), Help → About (version, licence, libraries),
 * and a first-run tour of the tabs (dismissable, remembered).
 */

#include <QDialog>
#include <QString>
#include <QStringList>

#include "params.h"

class QCheckBox;
class QLabel;
class QPushButton;

namespace pe {

/** What Help → About this scheme says. Plain text with simple HTML (sub/sup, i). */
struct SchemeHelp {
    QString name;    ///< "T5 relative attention bias"
    QString formula; ///< where position enters the logits
    QString paper;   ///< the reference
    QString lookAt;  ///< which tab and what to notice
    QString article; ///< which of the source articles explains it
};

SchemeHelp schemeHelp(Scheme s);
/** The dialog's rich text for a scheme. */
QString schemeHelpHtml(Scheme s);
/** Help → About's rich text: version, licence, libraries. */
QString aboutHtml();

/** One page of the tour per tab, in tab order. */
struct TourPage {
    QString tab;
    QString text;
};
const std::vector<TourPage>& tourPages();

/** The first-run tour: Back / Next / Done, "Don't show this again". */
class TourDialog : public QDialog {
    Q_OBJECT
public:
    explicit TourDialog(QWidget* parent = nullptr);
    int page() const { return m_page; }
    void setPage(int page);
    bool dontShowAgain() const;
    QPushButton* nextButton() const { return m_next; }
    QPushButton* backButton() const { return m_back; }
    QCheckBox* dontShowBox() const { return m_dontShow; }

Q_SIGNALS:
    /** The tour moved to this page: the window shows the tab it describes. */
    void pageShown(int page);

private:
    int m_page = 0;
    QLabel* m_title;
    QLabel* m_text;
    QLabel* m_counter;
    QPushButton* m_back;
    QPushButton* m_next;
    QCheckBox* m_dontShow;
};

} // namespace pe
