// SPDX-License-Identifier: MIT
#include "export_dialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QPushButton>

#include "ui_export_dialog.h"

namespace pe {

ExportDialog::ExportDialog(const QString& directory, int dpi, QWidget* parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ExportDialog>())
    , m_directory(directory) {
    m_ui->setupUi(this);
    m_ui->dpi->setValue(dpi);
    m_ui->path->setText(QDir(directory).filePath(QStringLiteral("figure.png")));
    updateFormats();
    connect(m_ui->what, &QComboBox::currentIndexChanged, this, &ExportDialog::updateFormats);
    connect(m_ui->format, &QComboBox::currentIndexChanged, this, &ExportDialog::fixSuffix);
    connect(m_ui->browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_ui->buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

ExportDialog::~ExportDialog() = default;

ExportDialog::What ExportDialog::what() const {
    return static_cast<What>(m_ui->what->currentIndex());
}

void ExportDialog::setWhat(What w) {
    m_ui->what->setCurrentIndex(static_cast<int>(w));
}

int ExportDialog::dpi() const {
    return m_ui->dpi->value();
}

QString ExportDialog::path() const {
    return m_ui->path->text();
}

void ExportDialog::updateFormats() {
    const QSignalBlocker b(m_ui->format);
    m_ui->format->clear();
    if (what() == What::Matrix) {
        m_ui->format->addItem(QStringLiteral("npy"));
        m_ui->format->addItem(QStringLiteral("csv"));
    } else {
        m_ui->format->addItem(QStringLiteral("png"));
        m_ui->format->addItem(QStringLiteral("svg"));
        m_ui->format->addItem(QStringLiteral("pdf"));
    }
    fixSuffix();
}

void ExportDialog::fixSuffix() {
    const QString suffix = m_ui->format->currentText();
    m_ui->dpi->setEnabled(suffix == QLatin1String("png"));
    QFileInfo fi(m_ui->path->text());
    m_ui->path->setText(fi.dir().filePath(fi.completeBaseName() + QLatin1Char('.') + suffix));
}

void ExportDialog::browse() {
    const QString suffix = m_ui->format->currentText();
    const QString p = QFileDialog::getSaveFileName(this, windowTitle(), m_ui->path->text(),
                                                   QStringLiteral("*.%1").arg(suffix));
    if (!p.isEmpty()) {
        m_ui->path->setText(p);
        fixSuffix();
    }
}

} // namespace pe
